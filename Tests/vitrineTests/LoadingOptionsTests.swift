import Foundation
import ImagePipeline
import Testing

@testable import vitrine

@Suite("Loading options on the command line")
struct LoadingOptionsTests {
    @Test("sizes take binary suffixes; nonsense is refused")
    func byteSizes() {
        #expect(ByteSize.parse("64M") == 64 << 20)
        #expect(ByteSize.parse("1g") == 1 << 30)
        #expect(ByteSize.parse("512KiB") == 512 << 10)
        #expect(ByteSize.parse("500000") == 500_000)
        #expect(ByteSize.parse("0") == 0)
        #expect(ByteSize.parse("12Q") == nil)
        #expect(ByteSize.parse("-5M") == nil)
        #expect(ByteSize.parse("") == nil)
        #expect(ByteSize.parse("99999999999999999999G") == nil)
    }

    @Test("the user agent is the version with a slash")
    func userAgent() {
        #expect(LoadingOptions.userAgent == versionText.split(separator: " ").joined(separator: "/"))
        #expect(LoadingOptions.userAgent.hasPrefix("vitrine/"))
    }

    @Test("the environment read from environ is ProcessInfo's")
    func environment() {
        #expect(processEnvironment() == ProcessInfo.processInfo.environment)
        #expect(processEnvironment()["PATH"] != nil)
    }

    @Test("browse flags reach the pipeline configuration")
    func flagsApply() throws {
        // Given a command line with every loading flag (but --offline, which --reload excludes)
        let command = try parseArguments([
            "gallery.json", "--memory-cache", "16M", "--disk-cache", "1G", "--reload",
            "--max-per-host", "2", "--header", "127.0.0.1:8080: Authorization: Bearer a:b",
        ])
        guard case .browse(let gallery, let options) = command else {
            Issue.record("expected browse, got \(command)")
            return
        }
        #expect(gallery == ["gallery.json"])
        // When they are applied
        var configuration = ImagePipeline.Configuration()
        options.loading.apply(to: &configuration)
        // Then the pipeline runs with them
        #expect(configuration.memoryCacheBytes == 16 << 20)
        #expect(configuration.diskCacheBytes == 1 << 30)
        #expect(configuration.readsDiskCache == false)
        #expect(configuration.offline == false)
        #expect(configuration.maxConcurrentLoadsPerHost == 2)
        #expect(configuration.headers == ["127.0.0.1": ["Authorization": "Bearer a:b"]])
    }

    @Test("bad values are usage errors (64) that say the expected form")
    func badValues() {
        for args in [["--memory-cache", "lots"], ["--max-per-host", "0"], ["--header", "no colon"], ["--disk-cache"]] {
            do {
                _ = try parseArguments(args)
                Issue.record("\(args) parsed")
            } catch {
                #expect(error.status == .usage)
            }
        }
    }

    @Test("list takes the loading flags too (headers for galleries behind a token, offline)")
    func listFlags() throws {
        let command = try parseArguments(["list", "http://127.0.0.1:9/g.json", "--offline", "--header", "127.0.0.1: X-Token: t"])
        guard case .list(_, let options) = command else {
            Issue.record("expected list, got \(command)")
            return
        }
        #expect(options.loading.offline)
        #expect(options.loading.headers == ["127.0.0.1": ["X-Token": "t"]])
        #expect(options.loading.diskCache)
    }

    @Test("--no-disk-cache is a loading flag: browse and list both take it")
    func noDiskCache() throws {
        guard case .list(_, let list) = try parseArguments(["list", "g.json", "--no-disk-cache"]),
            case .browse(_, let browse) = try parseArguments(["g.json", "--no-disk-cache"])
        else {
            Issue.record("expected list and browse")
            return
        }
        #expect(!list.loading.diskCache && !browse.loading.diskCache)
        #expect(try parseArguments(["g.json"]) == .browse(galleries: ["g.json"], options: BrowseOptions()))
    }

    @Test("--offline with --reload or --no-disk-cache is a usage error, in either order")
    func offlineConflicts() {
        for args in [["g.json", "--offline", "--reload"], ["g.json", "--reload", "--offline"],
                     ["list", "g.json", "--no-disk-cache", "--offline"]] {
            do {
                _ = try parseArguments(args)
                Issue.record("\(args) accepted")
            } catch {
                #expect(error.status == .usage)
                #expect(error.message.contains("--offline reads only the disk cache"))
            }
        }
    }
}
