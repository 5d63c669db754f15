import Foundation
import Testing

@testable import vitrine

@Suite("SaveNames: safe, never-overwriting file names for s")
struct SaveNamesTests {
    func name(_ url: String, kind: String? = "JPEG") -> String { SaveNames.safeName(for: URL(string: url)!, kind: kind) }

    @Test("the URL's last path component, percent-decoded; the extension from the image type when there is none")
    func plain() {
        #expect(name("http://127.0.0.1:8000/photos/Lady%20Bird.jpg?size=big") == "Lady Bird.jpg")
        #expect(name("http://127.0.0.1:8000/img/12345", kind: "PNG") == "12345.png")
        #expect(name("http://127.0.0.1:8000/a.b.c.webp", kind: "WebP") == "a.b.c.webp")
    }

    @Test("hostile names: .., /etc/passwd, a dot file, an escape sequence, bidi controls, 1,000 characters")
    func hostile() {
        #expect(name("http://127.0.0.1:8000/x/..") == "image.jpg")
        #expect(name("http://127.0.0.1:8000/x/%2E%2E") == "image.jpg")
        #expect(name("http://127.0.0.1:8000/%2Fetc%2Fpasswd") == "_etc_passwd.jpg")
        #expect(name("http://127.0.0.1:8000/..%2F..%2Fetc%2Fpasswd") == "_.._etc_passwd.jpg")
        #expect(name("http://127.0.0.1:8000/.bashrc") == "bashrc.jpg")
        #expect(name("http://127.0.0.1:8000/a%1B%5B2Jb%07.png") == "a_[2Jb_.png")
        #expect(name("http://127.0.0.1:8000/evil%E2%80%AEgpj.exe") == "evil_gpj.exe")
        #expect(name("http://127.0.0.1:8000/%00%0A") == "image.jpg")
        let long = String(repeating: "é", count: 1000)
        let cut = name("http://127.0.0.1:8000/\(long).jpg".addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.union(.init(charactersIn: ":")))!)
        #expect(cut.utf8.count <= SaveNames.maxNameBytes)
        #expect(cut.hasSuffix(".jpg") && cut.hasPrefix("éé"))
        #expect(!name("http://127.0.0.1:8000/" + String(repeating: "a", count: 1000)).contains("/"))
    }

    @Test("writes never overwrite: name, name (1), name (2); no temporary file is left")
    func noOverwrite() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-save-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data("first".utf8).write(to: folder.appendingPathComponent("a.jpg"))
        #expect(try SaveNames.write(Data("second".utf8), named: "a.jpg", in: folder) == "a (1).jpg")
        #expect(try SaveNames.write(Data("third".utf8), named: "a.jpg", in: folder) == "a (2).jpg")
        #expect(try SaveNames.write(Data("x".utf8), named: "noext", in: folder) == "noext")
        #expect(try SaveNames.write(Data("y".utf8), named: "noext", in: folder) == "noext (1)")
        #expect(try String(contentsOf: folder.appendingPathComponent("a.jpg"), encoding: .utf8) == "first")
        #expect(try String(contentsOf: folder.appendingPathComponent("a (2).jpg"), encoding: .utf8) == "third")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(names == ["a (1).jpg", "a (2).jpg", "a.jpg", "noext", "noext (1)"])
        // A folder that cannot be written says why and leaves nothing
        #expect(throws: SaveNames.WriteError.self) { try SaveNames.write(Data("z".utf8), named: "b.jpg", in: folder.appendingPathComponent("missing")) }
    }

    @Test("the save folder: --save-dir, else XDG_DOWNLOAD_DIR from user-dirs.dirs, else ~/Downloads, else the working folder")
    func folder() throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-home-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        try FileManager.default.createDirectory(at: home.appendingPathComponent(".config"), withIntermediateDirectories: true)
        let env = ["HOME": home.path]
        #expect(SaveNames.folder(option: "/x/y", environment: env).path == "/x/y")
        #expect(SaveNames.folder(option: nil, environment: env).path == FileManager.default.currentDirectoryPath)
        try FileManager.default.createDirectory(at: home.appendingPathComponent("Downloads"), withIntermediateDirectories: true)
        #expect(SaveNames.folder(option: nil, environment: env).path == home.appendingPathComponent("Downloads").path)
        try FileManager.default.createDirectory(at: home.appendingPathComponent("Téléchargements"), withIntermediateDirectories: true)
        try "# written by xdg-user-dirs-update\nXDG_DESKTOP_DIR=\"$HOME/Desktop\"\nXDG_DOWNLOAD_DIR=\"$HOME/Téléchargements\"\n"
            .write(to: home.appendingPathComponent(".config/user-dirs.dirs"), atomically: true, encoding: .utf8)
        #expect(SaveNames.folder(option: nil, environment: env).path == home.appendingPathComponent("Téléchargements").path)
        #expect(SaveNames.downloadDir(inUserDirs: "XDG_DOWNLOAD_DIR=\"/srv/dl\"", home: "/h") == "/srv/dl")
        #expect(SaveNames.downloadDir(inUserDirs: "XDG_DOWNLOAD_DIR=\"relative\"", home: "/h") == nil)
    }

    @Test("OSC 52: ESC ] 52 ; c ; base64 BEL")
    func osc52() {
        let bytes = ItemActions.osc52("/tmp/a b.jpg\nhttp://127.0.0.1/x")
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.hasPrefix("\u{1B}]52;c;") && text.hasSuffix("\u{07}"))
        let payload = text.dropFirst(7).dropLast()
        #expect(String(decoding: Data(base64Encoded: String(payload))!, as: UTF8.self) == "/tmp/a b.jpg\nhttp://127.0.0.1/x")
    }
}
