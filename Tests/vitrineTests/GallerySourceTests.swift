import Foundation
import Gallery
import ImagePipeline
import Testing

@testable import vitrine

@Suite("GallerySource: what is given as a gallery")
struct GallerySourceTests {
    @Test("an image given as the gallery says so and points at render")
    func imageInsteadOfGallery() throws {
        // Given a real PNG and a real JPEG fixture, read through the real pipeline
        let images = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/images")
        let fetcher = PipelineGalleryFetcher(pipeline: ImagePipeline(configuration: .init(memoryCacheBytes: 0)))
        for (file, kind) in [("1x1.png", "PNG"), ("progressive.jpg", "JPEG")] {
            // When each is opened as a gallery
            do throws(Failure) {
                _ = try GallerySource.page(at: images.appendingPathComponent(file), fetcher: fetcher, reading: GalleryReadOptions(), progress: false)
                Issue.record("\(kind) read as a gallery")
            } catch {
                // Then the error names the image kind and the render command
                #expect(error.status == .dataError)
                #expect(error.message == "\(file): a \(kind) image, not a gallery (to show one image, use vitrine render)")
            }
        }
        // And text that merely mentions a signature is still read as a gallery
        #expect(ImagePipeline.imageKind(of: Data(#"[{"title": "GIF89a", "url": "a.gif"}]"#.utf8)) == nil)
    }
}
