import Foundation
import Gallery
import ImagePipeline
import Testing

@testable import vitrine

@Suite("GallerySource and FileGallery: what is given as a gallery")
struct GallerySourceTests {
    static let images = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/images")
    let fetcher = PipelineGalleryFetcher(pipeline: ImagePipeline(configuration: .init(memoryCacheBytes: 0)))

    @Test("an image given as the gallery is a gallery of that one image")
    func imageInsteadOfGallery() throws {
        // Given a real PNG and a real JPEG fixture, read through the real pipeline
        for file in ["1x1.png", "progressive.jpg"] {
            // When each is opened as a gallery
            let page = try GallerySource.page(
                at: Self.images.appendingPathComponent(file), fetcher: fetcher, reading: GalleryReadOptions(),
                progress: false)
            // Then it is one item, titled by its file name, with no next page
            #expect(page.gallery.items.map(\.title) == [String(file.split(separator: ".")[0])])
            #expect(page.gallery.items.first?.imageURL == Self.images.appendingPathComponent(file))
            #expect(page.gallery.format == .files && page.next == nil)
        }
        // And text that merely mentions a signature is still read as a gallery
        #expect(ImagePipeline.imageKind(of: Data(#"[{"title": "GIF89a", "url": "a.gif"}]"#.utf8)) == nil)
    }

    /// A temporary folder with `files` (relative path → bytes), removed after `body`.
    func withFolder(_ files: [String: Data], _ body: (URL) throws -> Void) throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-src-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        for (path, data) in files {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try data.write(to: url)
        }
        try body(root)
    }

    @Test("a folder shows its images by their bytes, in natural order, subfolders only with -R")
    func folder() throws {
        let png = try Data(contentsOf: Self.images.appendingPathComponent("1x1.png"))
        let jpeg = try Data(contentsOf: Self.images.appendingPathComponent("progressive.jpg"))
        // Given images named without and with misleading extensions, text, a hidden image and a subfolder
        try withFolder([
            "img10.jpg": jpeg, "img2": png, "notes.jpg": Data("not a picture".utf8), ".hidden.png": png,
            "sub/deep.png": png, "readme.txt": Data("hello".utf8),
        ]) { root in
            // When the folder is read, flat and recursively
            let flat = try FileGallery.folder(root, recursive: false)
            let deep = try FileGallery.folder(root, recursive: true)
            // Then only the images are items, img2 before img10, and sub/ only with -R
            #expect(flat.items.map(\.title) == ["img2", "img10"])
            #expect(deep.items.map(\.title) == ["img2", "img10", "sub/deep"])
            #expect(flat.items[0].imageURL == root.appendingPathComponent("img2"))
            #expect(flat.name == root.lastPathComponent + "/")
        }
    }

    @Test("a folder with no images fails with 66 and says how to look deeper")
    func emptyFolder() throws {
        try withFolder(["a.txt": Data("x".utf8)]) { root in
            do throws(Failure) {
                _ = try FileGallery.folder(root, recursive: false)
                Issue.record("an empty folder opened")
            } catch {
                #expect(error.status == .noInput)
                #expect(error.message.hasSuffix("no images in this folder (-R looks in subfolders too)"))
            }
        }
    }

    @Test("several arguments: images, folders, galleries and missing files, in the order given")
    func severalArguments() throws {
        let png = try Data(contentsOf: Self.images.appendingPathComponent("1x1.png"))
        try withFolder([
            "pics/b.png": png, "pics/a.png": png, "one.png": png,
            "g.json": Data(#"[{"title": "From JSON", "url": "one.png"}]"#.utf8),
            "broken.json": Data("{\"a\": ".utf8),
        ]) { root in
            let args = ["one.png", "pics", "g.json", "missing.png", "broken.json"].map { root.appendingPathComponent($0).path }
            // When they are opened together
            let page = try FileGallery.open(args, fetcher: fetcher, reading: GalleryReadOptions())
            // Then each gives its items in turn; a missing file is a row, a broken gallery a row that says why
            #expect(page.gallery.items.map(\.title) == ["one", "a", "b", "From JSON", "missing", args[4]])
            #expect(page.gallery.items[4].hasURL && page.gallery.items[4].problem == nil)
            #expect(page.gallery.items[5].problem?.contains("broken.json:1:") == true)
            #expect(page.next == nil)
        }
    }
}
