import Foundation
import Locking
import TestSupport
import Testing

@testable import HTTPClient

/// `HTTPClient` against the fault server on loopback: answers, limits, timeouts, redirects,
/// headers that stay with their host, cancellation, and what a hostile server cannot make it do.
@Suite("HTTPClient on 127.0.0.1", .serialized, .timeLimit(.minutes(1)))
struct HTTPClientTests {
    func get(_ client: HTTPClient, _ request: HTTPRequest, seconds: Double = 10) -> Result<HTTPResponse, HTTPClientError>? {
        let done = Completions()
        client.submit(request) { done.record(0, $0) }
        return done.wait(for: 1, seconds: seconds)[0]?.first?.result
    }

    func failure(_ result: Result<HTTPResponse, HTTPClientError>?) -> HTTPClientError? {
        if case .failure(let error)? = result { return error }
        return nil
    }

    static func ms(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
    }

    @Test("a file comes back with its status, lower-cased headers and body; User-Agent is sent")
    func plainGet() throws {
        let server = try LoopbackServer.serving(logHeaders: true)
        var configuration = HTTPClient.Configuration()
        configuration.userAgent = "vitrine/9.9"
        let client = HTTPClient(configuration: configuration)

        let result = get(client, HTTPRequest(url: server.address("a.png")))

        guard case .success(let response)? = result else {
            Issue.record("\(String(describing: result))")
            return
        }
        #expect(response.status == 200)
        #expect(response.body == LoopbackServer.onePixelPNG)
        #expect(response.headers["etag"] != nil && response.headers["cache-control"] == "max-age=3600")
        #expect(server.lines(containing: "HEADER GET /a.png User-Agent: vitrine/9.9").count == 1)
    }

    @Test("a 404 is an answer with its status and no body; the body is not read")
    func errorStatus() throws {
        let server = try LoopbackServer.serving()
        let client = HTTPClient()
        let result = get(client, HTTPRequest(url: server.address("status/404/x")))
        guard case .success(let response)? = result else {
            Issue.record("\(String(describing: result))")
            return
        }
        #expect(response.status == 404)
        #expect(response.body.isEmpty)
    }

    @Test("headers for one host stay there: a redirect to another host or port goes without them")
    func headersStayWithTheirHost() throws {
        // Given a server on 127.0.0.1 and another on 127.0.0.2 (and a second port on .1)
        let first = try LoopbackServer.serving(logHeaders: true)
        let second = try LoopbackServer.serving(bind: "127.0.0.2", logHeaders: true)
        let otherPort = try LoopbackServer.serving(logHeaders: true)
        let client = HTTPClient()
        let token = [HTTPHeader("Authorization", "Bearer s3cret"), HTTPHeader("X-Api-Key", "k1")]

        // When a request with credentials for 127.0.0.1 is redirected to 127.0.0.2
        let elsewhere = second.address("a.png")
        let crossHost = get(
            client,
            HTTPRequest(url: first.address("redirect-to?url=\(elsewhere)"), originHeaders: token))
        // and another to the same host on another port, and a third within the same origin
        let crossPort = get(
            client,
            HTTPRequest(url: first.address("redirect-to?url=\(otherPort.address("a.png"))"), originHeaders: token))
        let sameOrigin = get(client, HTTPRequest(url: first.address("redirect-same/a.png"), originHeaders: token))

        // Then every image arrives; the first server saw the headers, the others never did
        for result in [crossHost, crossPort, sameOrigin] {
            guard case .success(let response)? = result else {
            Issue.record("\(String(describing: result))")
            return
        }
            #expect(response.status == 200 && response.body == LoopbackServer.onePixelPNG)
        }
        #expect(first.lines(containing: "Authorization: Bearer s3cret").count == 4)
        #expect(first.lines(containing: "HEADER GET /a.png Authorization").count == 1)
        for server in [second, otherPort] {
            #expect(server.lines(containing: "GET /a.png").count >= 1)
            #expect(server.lines(containing: "Authorization").isEmpty, "\(server.lines)")
            #expect(server.lines(containing: "X-Api-Key").isEmpty)
        }
    }

    @Test("redirects: at most 10 hops, http(s) only, each named")
    func redirects() throws {
        let server = try LoopbackServer.serving()
        let client = HTTPClient()
        #expect(failure(get(client, HTTPRequest(url: server.address("redirect-loop/0")))) == .tooManyRedirects)
        #expect(server.lines(containing: "GET /redirect-loop/").count == 11)
        #expect(
            failure(get(client, HTTPRequest(url: server.address("redirect-file/etc/passwd"))))
                == .unsupportedRedirect("file:///etc/passwd"))
        #expect(server.lines(containing: "/etc/passwd").count == 1)
    }

    @Test("failures say what happened")
    func messages() throws {
        let server = try LoopbackServer.serving()
        let client = HTTPClient()
        // A port nobody listens on: bind one, then close it
        let closedPort = try Self.unusedPort()
        #expect(failure(get(client, HTTPRequest(url: "http://127.0.0.1:\(closedPort)/a.png"))) == .network("connection refused"))
        #expect(
            failure(get(client, HTTPRequest(url: "https://127.0.0.1:\(server.port)/a.png")))
                == .network("the server did not answer TLS"))
        #expect(failure(get(client, HTTPRequest(url: server.address("cut/a.png")))) == .network("connection cut mid-body"))
        #expect(failure(get(client, HTTPRequest(url: server.address("many-headers/10000/a.png")))) == .network("too many headers"))
        #expect(failure(get(client, HTTPRequest(url: server.address("long-header/20000/a.png")))) == .network("header too large"))
        #expect(failure(get(client, HTTPRequest(url: "ftp://127.0.0.1/a.png"))) == .badURL("ftp://127.0.0.1/a.png"))
    }

    @Test("an IPv6 literal URL works")
    func ipv6Literal() throws {
        guard let server = try? LoopbackServer.serving(bind: "::1") else { return }  // no ::1 here
        let client = HTTPClient()
        let result = get(client, HTTPRequest(url: server.address("a.png")))
        guard case .success(let response)? = result else {
            Issue.record("\(String(describing: result))")
            return
        }
        #expect(response.body == LoopbackServer.onePixelPNG)
    }

    @Test("idle and total timeouts end a hang and a trickle with their own errors, never before their time")
    func timeouts() throws {
        let server = try LoopbackServer.serving()
        let client = HTTPClient()
        let done = Completions()
        let start = ContinuousClock.now
        // A body that stops after 8 bytes and then holds forever: idle 600 ms. One byte every
        // 100 ms for 30 s, so never idle: total 1,500 ms. Each server holds far longer than its
        // timeout, and the request defaults (15 s idle, 60 s total) are longer still, so each
        // error below can only come from the timeout the request set.
        client.submit(HTTPRequest(url: server.address("hang/x"), idleTimeoutMs: 600)) { done.record(0, $0) }
        client.submit(HTTPRequest(url: server.address("trickle/30"), idleTimeoutMs: 1_000, totalTimeoutMs: 1_500)) {
            done.record(1, $0)
        }
        let entries = done.wait(for: 2, seconds: 20)
        let hang = entries[0]?.first, trickle = entries[1]?.first
        #expect(failure(hang?.result) == .timedOut)
        #expect(failure(trickle?.result) == .tooSlow)
        let hangMs = hang.map { Self.ms($0.at - start) } ?? .infinity
        let trickleMs = trickle.map { Self.ms($0.at - start) } ?? .infinity
        // Not before the timeout (a lower bound a slow machine cannot break). The upper bounds are
        // ten times the timeout: generous for a loaded machine, and still short of the 15 s
        // default idle timeout and of the trickle's 30 s, so a timeout that was ignored fails here.
        // (How close to the millisecond a timeout fires is a benchmark's question, not a test's.)
        #expect(hangMs >= 600 && hangMs < 6_000, "hang ended after \(hangMs) ms")
        #expect(trickleMs >= 1_500 && trickleMs < 15_000, "trickle ended after \(trickleMs) ms")
    }

    /// The server's time of its `CLOSED PATH T` line (`logTimes`), or nil when it never logged one.
    static func closedAt(_ line: String?) -> Double? {
        line.flatMap { Double($0.split(separator: " ").last ?? "") }
    }

    @Test("a body refused at its headers or cancelled mid-way: the client closes the connection")
    func refusedAndCancelledBodiesStop() throws {
        let server = try LoopbackServer.serving(logTimes: true)
        let client = HTTPClient()
        // Given 200 MB announced against a 1 MiB cap: refused at the headers
        let refused = get(client, HTTPRequest(url: server.address("big/209715200"), maxBodyBytes: 1 << 20))
        #expect(failure(refused) == .tooLarge(limit: 1 << 20))
        // Then the server sees the connection closed under its feet (a write fails): "CLOSED" is
        // logged only then, never when a body is read to its end. Left open (pooled, or only
        // paused) the connection would hold until the 15 s idle timeout, past this 10 s wait.
        let closed = server.waitForLine(containing: "CLOSED /big/209715200", seconds: 10)
        #expect(Self.closedAt(closed) != nil, "the server never saw the refused body's connection close")

        // Given an endless body being read, cancelled
        let done = Completions()
        let id = client.submit(HTTPRequest(url: server.address("endless/x"), maxBodyBytes: 4 << 30)) { done.record(0, $0) }
        // (the server has taken the request and is sending)
        #expect(server.waitForLine(containing: "GET /endless/x") != nil)
        let cancelledAt = monotonicNow()
        client.cancel(id)
        let entries = done.wait(for: 1)
        #expect(failure(entries[0]?.first?.result) == .cancelled)
        // Then the server sees that connection closed too, and only after the cancel (the body
        // never ends by itself; its 4 GiB cap would end it as .tooLarge, not .cancelled)
        let gone = Self.closedAt(server.waitForLine(containing: "CLOSED /endless/x", seconds: 10))
        #expect(gone != nil, "the server never saw the cancelled body's connection close")
        if let gone { #expect(gone >= cancelledAt, "closed \(cancelledAt - gone) s before the cancel") }
        // And nothing more comes for it: a later request through the same network thread
        // completes, and the cancelled one still has its one completion
        #expect(get(client, HTTPRequest(url: server.address("a.png"))).flatMap { try? $0.get().status } == 200)
        #expect(done.snapshot[0]?.count == 1)
    }

    @Test("a gzip bomb stops at the cap of decoded bytes, and the server is not read to the end")
    func gzipBomb() throws {
        let server = try LoopbackServer.serving()
        let client = HTTPClient()
        // 2 GiB inflated, 2 MB on the wire at 16 KB every 10 ms: 1.3 s to send it all, so "not
        // read to the end" holds however slowly the client runs (a sanitizer, a loaded machine;
        // 256 MiB, 170 ms of sending, was all sent before a slowed client hung up)
        let result = get(client, HTTPRequest(url: server.address("gzip-bomb/2048"), maxBodyBytes: 16 << 20))
        #expect(failure(result) == .tooLarge(limit: 16 << 20))
        // What proves the stop is the server's count, not a clock: fewer bytes left it than the
        // body has (read to the end, the 2 GiB would have been inflated past the cap in full)
        let sent = server.waitForLine(containing: "SENT /gzip-bomb/2048")
        let parts = sent?.split(separator: " ").last?.split(separator: "/").compactMap { Int($0) } ?? []
        #expect(parts.count == 2 && parts[0] < parts[1], "\(String(describing: sent))")
    }

    @Test("six endless bodies hold at most the body budget plus one cap, and each fails as too large")
    func bodyBudget() throws {
        let server = try LoopbackServer.serving()
        var configuration = HTTPClient.Configuration()
        configuration.bufferedBodyBytes = 16 << 20
        let client = HTTPClient(configuration: configuration)
        let done = Completions()
        for i in 0..<6 {
            client.submit(HTTPRequest(url: server.address("endless/\(i)"), maxBodyBytes: 24 << 20)) { done.record(i, $0) }
        }
        let entries = done.wait(for: 6, seconds: 30)
        #expect(entries.count == 6)
        for (_, list) in entries { #expect(list.count == 1 && failure(list[0].result) == .tooLarge(limit: 24 << 20)) }
    }

    @Test("no CPU while six requests wait on a slow server")
    func idleCPU() throws {
        let server = try LoopbackServer.serving()
        let client = HTTPClient()
        let done = Completions()
        for i in 0..<6 { client.submit(HTTPRequest(url: server.address("slow/2/\(i).png"))) { done.record(i, $0) } }
        // Given all six on the server, which holds each answer for 2 s
        #expect(server.waitForRequests(containing: "/slow/2/", count: 6) == 6)
        // The network thread's own clock: other tests run in this process at the same time.
        let before = try #require(client.networkThreadCPUSeconds)
        // When the answers come (the wait is the server's, not a sleep of the test)
        let entries = done.wait(for: 6)
        let used = try #require(client.networkThreadCPUSeconds) - before
        #expect(entries.count == 6)
        // Then the network thread used next to no CPU while it waited (and took six small answers)
        #expect(used < 0.02, "the network thread used \(used) s of CPU waiting on six requests")
    }

    @Test("a cancel storm: thousands of random submits and cancels from four threads, one completion each")
    func cancelStorm() throws {
        let server = try LoopbackServer.serving()
        let client = HTTPClient()
        let done = Completions()
        let ids = Mutex<[Int: HTTPTransferID]>([:])
        let paths = ["a.png", "slow/0.01/a.png", "status/404/x", "big/300000", "hang/x"]
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            var generator = SystemRandomNumberGenerator()
            for n in 0..<750 {
                let key = worker * 1000 + n
                let path = paths[Int.random(in: 0..<paths.count, using: &generator)]
                let id = client.submit(HTTPRequest(url: server.address(path), idleTimeoutMs: 3_000)) { done.record(key, $0) }
                ids.withLock { $0[key] = id }
                if Bool.random(using: &generator) {
                    let victim = ids.withLock { $0.randomElement()?.value }
                    if let victim { client.cancel(victim) }
                    // Jitter (not a wait for anything): interleave the threads' submits and cancels differently
                    if Int.random(in: 0..<4, using: &generator) == 0 { usleep(UInt32.random(in: 0..<500, using: &generator)) }
                }
            }
        }
        // Cancel whatever is left (the hangs), then every request has exactly one completion
        for id in ids.withLock({ Array($0.values) }) { client.cancel(id) }
        let entries = done.wait(for: 3000, seconds: 30)
        #expect(entries.count == 3000)
        #expect(entries.values.allSatisfy { $0.count == 1 })
        // And nothing more comes: a later request through the same network thread completes,
        // and every earlier one still has exactly one completion
        #expect(get(client, HTTPRequest(url: server.address("a.png"))).flatMap { try? $0.get().status } == 200)
        #expect(done.snapshot.values.allSatisfy { $0.count == 1 })
        #expect(client.statistics.completed == 3001)
    }

    @Test("shutdown completes every transfer in flight and every later submit with .shutDown")
    func shutdown() throws {
        let server = try LoopbackServer.serving()
        let client = HTTPClient()
        let done = Completions()
        client.submit(HTTPRequest(url: server.address("hang/x"))) { done.record(0, $0) }
        // (the transfer is on the server, in flight)
        #expect(server.waitForLine(containing: "GET /hang/x") != nil)
        client.shutdown()
        client.submit(HTTPRequest(url: server.address("a.png"))) { done.record(1, $0) }
        let entries = done.wait(for: 2)
        #expect(failure(entries[0]?.first?.result) == .shutDown)
        #expect(failure(entries[1]?.first?.result) == .shutDown)
    }

    @Test("shutdown(waitingAtMost:) returns once the network thread has left libcurl, with a transfer in flight")
    func shutdownWaits() throws {
        #expect(HTTPClient().shutdown(waitingAtMost: .zero), "a client that never started a thread has none to wait for")
        let server = try LoopbackServer.serving()
        let client = HTTPClient()
        let done = Completions()
        client.submit(HTTPRequest(url: server.address("hang/x"))) { done.record(0, $0) }
        // The thread is running (its clock is set when it starts) and the transfer connected.
        #expect(server.waitForLine(containing: "/hang/x") != nil)
        #expect(client.networkThreadCPUSeconds != nil)
        #expect(Engine.running.withLock { $0[ObjectIdentifier(client.engine)] } != nil)
        #expect(client.shutdown(waitingAtMost: .seconds(5)))
        // The loop has ended: the engine left the exit hook's list, and the transfer completed.
        #expect(Engine.running.withLock { $0[ObjectIdentifier(client.engine)] } == nil)
        #expect(failure(done.wait(for: 1)[0]?.first?.result) == .shutDown)
        #expect(client.shutdown(waitingAtMost: .zero), "a second wait returns at once")
    }

    static func unusedPort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
