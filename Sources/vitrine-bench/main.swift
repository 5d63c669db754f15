// vitrine-bench: what rendering and loading cost (docs/PERFORMANCE.md, "TUI cost" and
// "Image pipeline").
//
//   swift run -c release vitrine-bench [render] [IMAGE]     the renderer (RenderBench.swift)
//   swift run -c release vitrine-bench cache-hit [IMAGE] [--iterations N] [--entries N]
//   swift run -c release vitrine-bench thumbnails [--rounds N] [--box WxH] FILE...
//   swift run -c release vitrine-bench calls BASE-URL [--count N]
//   swift run -c release vitrine-bench zoom IMAGE [--steps N]       (ZoomBench.swift)
//   swift run -c release vitrine-bench pan-encode IMAGE [--steps N] [--dump DIR] [--region-pixels N]
//                                                           (PanEncodeBench.swift)
//   swift run -c release vitrine-bench kitty-region IMAGE [--regions N] (KittyRegionBench.swift)
//                                                           (PipelineBench.swift)
//   swift run -c release vitrine-bench fetch-thumbnails URL-WITH-{i} [--count N]
//                                                           (NetworkBench.swift)
//   swift run -c release vitrine-bench search [--items N]  (BrowseBench.swift)
import Foundation
import ImagePipeline

// The same malloc set-up as `vitrine` (two arenas unless MALLOC_ARENA_MAX says otherwise), so
// the pipeline benchmarks measure what the browser runs.
ImagePipeline.limitMallocArenas(to: 2, environment: ProcessInfo.processInfo.environment)
var arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "cache-hit": cacheHitBench(Array(arguments.dropFirst()))
case "thumbnails": thumbnailsBench(Array(arguments.dropFirst()))
case "calls": callsBench(Array(arguments.dropFirst()))
case "fetch-thumbnails": fetchThumbnailsBench(Array(arguments.dropFirst()))
case "render": renderBench(Array(arguments.dropFirst()))
case "zoom": zoomBench(Array(arguments.dropFirst()))
case "pan-encode": panEncodeBench(Array(arguments.dropFirst()))
case "kitty-region": kittyRegionBench(Array(arguments.dropFirst()))
case "search": searchBench(Array(arguments.dropFirst()))
case "-h", "--help":
    print("usage: vitrine-bench [render] [IMAGE] | cache-hit [IMAGE] [--iterations N] [--entries N] | "
        + "thumbnails [--rounds N] [--box WxH] [--vipsthumbnail PATH] FILE... | calls BASE-URL [--count N] | "
        + "search [--items N]")
default: renderBench(arguments)
}
if sink == 42 { print("") }
