import Foundation
import Testing
@testable import Gallery

@Suite("IIIF")
struct IIIFTests {
    @Test("Presentation 2: canvases, thumbnail objects, image service fallback")
    func v2() throws {
        // Given a v2 manifest: one canvas with a thumbnail, one with only an image service
        let json = """
        {"@context": "http://iiif.io/api/presentation/2/context.json", "@type": "sc:Manifest",
         "@id": "https://iiif.example.org/m/1/manifest", "label": "Book of Hours",
         "sequences": [{"canvases": [
           {"@id": "c1", "label": "f. 1r", "thumbnail": {"@id": "https://iiif.example.org/t/1.jpg"},
            "images": [{"resource": {"@id": "https://iiif.example.org/i/1/full/full/0/default.jpg", "width": 3000, "height": 4000}}]},
           {"@id": "c2", "label": [{"@value": "f. 1v", "@language": "en"}],
            "images": [{"resource": {"@id": "https://iiif.example.org/i/2/full/full/0/default.jpg",
                                     "service": {"@id": "https://iiif.example.org/i/2/"}}}]}
         ]}]}
        """
        let gallery = try Fixtures.read(json)
        #expect(gallery.format == .iiifV2)
        #expect(gallery.name == "Book of Hours")
        #expect(gallery.items.map(\.title) == ["f. 1r", "f. 1v"])
        #expect(gallery.items[0].thumbnailURL?.absoluteString == "https://iiif.example.org/t/1.jpg")
        #expect(gallery.items[1].thumbnailURL?.absoluteString == "https://iiif.example.org/i/2/full/200,/0/default.jpg")
        #expect(gallery.items[1].imageURL?.absoluteString == "https://iiif.example.org/i/2/full/full/0/default.jpg")
    }

    @Test("Presentation 3: language-map labels, painting annotation bodies, thumbnail arrays")
    func v3() throws {
        let json = """
        {"@context": ["http://www.w3.org/ns/anno.jsonld", "http://iiif.io/api/presentation/3/context.json"],
         "id": "https://iiif.example.org/m/3", "type": "Manifest", "label": {"fr": ["Carte"], "en": ["Map"]},
         "items": [
           {"id": "c1", "type": "Canvas", "label": {"none": ["p. 1"]},
            "thumbnail": [{"id": "https://iiif.example.org/t/p1.jpg", "type": "Image", "width": 150}],
            "items": [{"type": "AnnotationPage", "items": [{"type": "Annotation", "motivation": "painting",
              "body": {"id": "https://iiif.example.org/i/p1/full/max/0/default.jpg", "type": "Image", "width": 5000, "height": 4000}}]}]},
           {"id": "c2", "type": "Canvas", "label": {"de": ["Seite 2"]},
            "items": [{"type": "AnnotationPage", "items": [{"type": "Annotation",
              "body": {"type": "Choice", "items": [{"id": "https://iiif.example.org/i/p2.jpg", "type": "Image",
                       "service": [{"id": "https://iiif.example.org/svc/p2", "type": "ImageService3"}]}]}}]}]}
         ]}
        """
        let gallery = try Fixtures.read(json)
        #expect(gallery.format == .iiifV3)
        #expect(gallery.name == "Map")
        #expect(gallery.items.map(\.title) == ["p. 1", "Seite 2"])
        #expect(gallery.items[0].thumbnailURL?.absoluteString == "https://iiif.example.org/t/p1.jpg")
        #expect(gallery.items[0].imageURL?.absoluteString == "https://iiif.example.org/i/p1/full/max/0/default.jpg")
        #expect(gallery.items[1].thumbnailURL?.absoluteString == "https://iiif.example.org/svc/p2/full/200,/0/default.jpg")
        #expect(gallery.items[1].imageURL?.absoluteString == "https://iiif.example.org/i/p2.jpg")
    }
}
