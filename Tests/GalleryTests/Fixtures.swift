import Foundation
@testable import Gallery

/// Sources and helpers shared by the Gallery tests. Every URL is a loopback or example.com
/// address that is never contacted: nothing here touches the network or the disk.
enum Fixtures {
    static let plistFile = URL(fileURLWithPath: "/srv/galleries/flags.plist")
    static let jsonFile = URL(fileURLWithPath: "/srv/galleries/gallery.json")
    static let httpJSON = URL(string: "http://127.0.0.1:8080/api/v1/gallery.json?offset=0")!

    static func read(_ text: String, from source: URL = jsonFile) throws(GalleryError) -> Gallery {
        try GalleryReader.read(Data(text.utf8), source: source)
    }

    /// The error reading `text` throws, or nil when it reads fine.
    static func error(_ text: String, from source: URL = jsonFile) -> GalleryError? {
        do {
            _ = try read(text, from: source)
            return nil
        } catch {
            return error
        }
    }

    /// A binary plist made at test time from a Foundation tree.
    static func binaryPlist(_ value: Any) throws -> Data {
        try PropertyListSerialization.data(fromPropertyList: value, format: .binary, options: 0)
    }

    /// Apple's Countries sample, shortened, as XML.
    static let countriesXML = """
    <?xml version="1.0" encoding="UTF-8"?>
    <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
    <plist version="1.0">
    <dict>
        <key>countries</key>
        <array>
            <dict>
                <key>name</key><string>France</string>
                <key>url</key><string>flags/fr.png</string>
            </dict>
            <dict>
                <key>name</key><string>Japan</string>
                <key>url</key><string>flags/jp.png</string>
            </dict>
            <dict>
                <key>name</key><string>Brazil</string>
                <key>url</key><string>http://127.0.0.1:8080/flags/br.png</string>
            </dict>
        </array>
    </dict>
    </plist>
    """

    /// A DeviantArt API v1 gallery page, invented data on example.com.
    static let deviantArt = """
    {
      "has_more": true,
      "next_offset": 24,
      "results": [
        {
          "deviationid": "0A1B2C3D-0000-0000-0000-000000000001",
          "url": "https://www.example.com/artist/art/moon-and-sea-1",
          "title": "Moon &amp; Sea &quot;II&quot;",
          "content": {"src": "https://images.example.com/full/moon.jpg", "width": 1920, "height": 1080},
          "preview": {"src": "https://images.example.com/pre/moon.jpg", "width": 800, "height": 450},
          "thumbs": [
            {"src": "https://images.example.com/t300/moon.jpg", "width": 300, "height": 169},
            {"src": "https://images.example.com/t150/moon.jpg", "width": 150, "height": 84},
            {"src": "https://images.example.com/t200/moon.jpg", "width": 200, "height": 113}
          ]
        },
        {
          "deviationid": "0A1B2C3D-0000-0000-0000-000000000002",
          "title": "A poem",
          "excerpt": "Literature has no picture"
        },
        {
          "deviationid": "0A1B2C3D-0000-0000-0000-000000000003",
          "preview": {"src": "https://images.example.com/pre/field.jpg", "width": 640, "height": 480}
        }
      ]
    }
    """
}
