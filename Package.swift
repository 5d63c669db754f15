// swift-tools-version:6.0
// Vitrine: a terminal gallery browser. See docs/ARCHITECTURE.md for the module map.
import PackageDescription

/// Settings shared by every Swift target: Swift 6 language mode (strict concurrency) is the
/// package default; warnings about concurrency are errors there already.
let swiftSettings: [SwiftSetting] = []

/// The folder holding this manifest (absolute), for files the linker reads.
let packageDirectory = String(#filePath.dropLast("/Package.swift".count))

/// GLib's header folders (`pkg-config --cflags gobject-2.0` on Debian), for the CVips shim's C
/// file alone: a pkg-config system library would also link GLib and GObject into every start,
/// which never calls them (CVips opens them with dlopen; docs/PERFORMANCE.md, issue 14).
#if arch(arm64)
let glibIncludes = ["-I/usr/include/glib-2.0", "-I/usr/lib/aarch64-linux-gnu/glib-2.0/include"]
#else
let glibIncludes = ["-I/usr/include/glib-2.0", "-I/usr/lib/x86_64-linux-gnu/glib-2.0/include"]
#endif

let package = Package(
    name: "Vitrine",
    products: [
        .executable(name: "vitrine", targets: ["vitrine"]),
        .library(name: "ImagePipeline", targets: ["ImagePipeline"]),
        .library(name: "HalfBlock", targets: ["HalfBlock"]),
        .library(name: "Gallery", targets: ["Gallery"]),
    ],
    targets: [
        // ncursesw, wide-character build. The module map's header defines NCURSES_WIDECHAR
        // because SwiftPM drops the -D flags of ncursesw.pc.
        // No pkgConfig for the libraries linked statically in release (ncursesw, tinfo, jpeg,
        // png16, z): SwiftPM puts pkg-config's -L/usr/lib/x86_64-linux-gnu before
        // the vitrine target's -L scripts/static-libs, which then never wins. Their headers are
        // on the default include path and each module map names its libraries.
        .systemLibrary(
            name: "CNcursesw",
            providers: [.apt(["libncurses-dev"])]
        ),
        // libvips headers (types and macros only: CVips opens libvips, GLib and GObject with
        // dlopen at first use, so nothing of them is linked; see glibIncludes).
        .systemLibrary(
            name: "CLibvips",
            providers: [.apt(["libvips-dev"])]
        ),
        // A thin C shim over libvips's variadic API (Swift cannot call variadic C functions).
        .target(
            name: "CVips",
            dependencies: ["CLibvips"],
            cSettings: [.unsafeFlags(glibIncludes)]
        ),
        // libcurl headers only (Debian's are on the default include path): CCurl opens libcurl
        // with dlopen at the first request, so no start loads its 31 libraries.
        .systemLibrary(
            name: "CLibcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        // A thin C shim over libcurl's variadic setopt/getinfo (Swift cannot call variadic C).
        .target(
            name: "CCurl",
            dependencies: ["CLibcurl"]
        ),
        // HTTP on libcurl's multi interface: one network thread, submit/cancel from any thread.
        // A pthread mutex around a value (Synchronization.Mutex locks with futexes that
        // ThreadSanitizer cannot see).
        .target(name: "Locking", swiftSettings: swiftSettings),
        .target(name: "HTTPClient", dependencies: ["CCurl", "CLibcurl", "Locking"], swiftSettings: swiftSettings),
        // The hot path's decoders (issue 14): libjpeg-turbo, libpng (CPNG, below) and LittleCMS
        // headers, and a thin C shim over them (jpeglib and libpng report errors by longjmp).
        .systemLibrary(name: "CLibjpeg", providers: [.apt(["libjpeg62-turbo-dev"])]),
        // LittleCMS: headers only; CImageCodecs's colour.c opens liblcms2.so.2 with dlopen when
        // the first embedded ICC profile arrives, so a start-up (most images have none) does not
        // load and relocate it.
        .systemLibrary(name: "CLcms2", providers: [.apt(["liblcms2-dev"])]),
        // zlib (libpng's inflater): crc32 for png.c's IDAT and IHDR checks.
        .target(
            name: "CImageCodecs", dependencies: ["CLibjpeg", "CPNG", "CLcms2"],
            linkerSettings: [.linkedLibrary("jpeg"), .linkedLibrary("png16"), .linkedLibrary("z")]),
        // libsixel (the sixel encoder) and libpng (CImageCodecs's PNG decoder, and its
        // simplified API for PNG files in iTerm2 inline images, in TerminalGraphics).
        // CSixel opens libsixel.so.1 with dlopen at the first sixel encode (headers from
        // libsixel-dev), so a start-up that draws no sixel does not load it.
        .target(name: "CSixel", linkerSettings: [.linkedLibrary("dl")]),
        .systemLibrary(name: "CPNG", providers: [.apt(["libpng-dev"])]),
        .target(name: "HalfBlock", swiftSettings: swiftSettings),
        .target(name: "Gallery", swiftSettings: swiftSettings),
        .target(
            name: "ImagePipeline",
            dependencies: ["CVips", "CImageCodecs", "HalfBlock", "HTTPClient", "Locking"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "TerminalUI",
            dependencies: ["CNcursesw", "HalfBlock", "Locking"],
            swiftSettings: swiftSettings
        ),
        // The browse core: items, the list a view shows, thumbnail loading, views, bindings.
        .target(
            name: "Browse",
            dependencies: ["Gallery", "ImagePipeline", "HalfBlock", "TerminalUI", "TerminalGraphics", "Locking"],
            swiftSettings: swiftSettings
        ),
        // Image presenters (kitty graphics, sixel, iTerm2, half blocks) and the zoom/pan model.
        .target(
            name: "TerminalGraphics",
            dependencies: ["TerminalUI", "HalfBlock", "CSixel", "CPNG", "CImageCodecs"],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "vitrine",
            dependencies: ["Gallery", "ImagePipeline", "HalfBlock", "TerminalUI", "Browse", "TerminalGraphics"],
            resources: [.copy("../../Resources/demo")],
            swiftSettings: swiftSettings,
            // Release links with the toolchain's lld and packed relative relocations (DT_RELR,
            // glibc 2.36+): the statically linked Swift runtime's 76,000 relative relocations
            // take 14 KB instead of 1.8 MB, which every start used to read (peak RSS -2.7 MB,
            // docs/PERFORMANCE.md "Render speed"). Link flags only: no module is rebuilt.
            // The functions a one-shot run executes are laid out together
            // (scripts/startup-symbols.order, made by scripts/make-startup-order.sh): the kernel
            // maps 64 KiB of code around each fault, and scattered they kept 6.5 MB resident
            // (peak RSS of a 1x1 render 15.6 → 12.6 MB, docs/PERFORMANCE.md issue 14).
            // libstdc++ is linked statically: scripts/static-libs comes before GCC's folder
            // on the search path, and its libstdc++.so is a linker script naming libstdc++.a, so
            // the toolchain's own -lstdc++ takes the archive. The runtime uses a dozen of its
            // functions; the shared library cost 1,720 symbol relocations at every start.
            // The same scripts make -lncursesw, -ltinfo, -ljpeg, -lpng16 and -lz take Debian's
            // static archives, and -static-libgcc links the unwinder (libgcc_eh.a) instead of
            // libgcc_s.so: every shared object costs a start about 0.1 ms (opening, mapping,
            // relocating it, and libgcc_s's CPU probe), which `render` of a PNG never uses
            // (docs/PERFORMANCE.md, issue 14, sixth round). --exclude-libs ALL (the static
            // runtime's own flag) keeps their symbols out of the dynamic table, so libvips,
            // opened later with its own libjpeg and libpng, does not bind to these copies.
            linkerSettings: [
                .unsafeFlags(
                    ["-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs",
                     "-Xlinker", "--symbol-ordering-file=\(packageDirectory)/scripts/startup-symbols.order",
                     "-Xlinker", "--no-warn-symbol-ordering",
                     "-L", "\(packageDirectory)/scripts/static-libs", "-Xclang-linker", "-static-libgcc"],
                    .when(platforms: [.linux], configuration: .release))
            ]
        ),
        // `swift run -c release vitrine-bench`: the renderer's cost per thumbnail row and per frame.
        .executableTarget(name: "vitrine-bench", dependencies: ["HalfBlock", "ImagePipeline", "CImageCodecs", "TerminalGraphics", "Gallery", "TerminalUI", "Browse"], path: "Sources/vitrine-bench"),
        // The test doubles that more than one test target uses: the loopback server
        // (Tests/Fixtures/galleryserver.py), waiting for what other threads change, and picture scores.
        .target(name: "TestSupport", dependencies: ["Locking", "HalfBlock"], path: "Tests/TestSupport", swiftSettings: swiftSettings),
        .testTarget(
            name: "HTTPClientTests", dependencies: ["HTTPClient", "Locking", "TestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "HalfBlockTests", dependencies: ["HalfBlock"], swiftSettings: swiftSettings),
        .testTarget(name: "GalleryTests", dependencies: ["Gallery"], swiftSettings: swiftSettings),
        .testTarget(
            name: "ImagePipelineTests",
            dependencies: ["ImagePipeline", "HalfBlock", "Locking", "TestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "vitrineTests",
            dependencies: ["vitrine", "ImagePipeline", "HalfBlock", "Browse"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "BrowseTests",
            dependencies: ["Browse", "TerminalUI", "Gallery", "ImagePipeline", "HalfBlock", "TerminalGraphics", "Locking"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "TerminalGraphicsTests",
            dependencies: ["TerminalGraphics", "TerminalUI", "HalfBlock", "TestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "TerminalUITests",
            dependencies: ["TerminalUI", "HalfBlock"],
            swiftSettings: swiftSettings
        ),
    ]
)
