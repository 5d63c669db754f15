import Foundation
import Testing
@testable import Gallery

@Suite("NextPage")
struct NextPageTests {
    @Test("builds the next request by replacing or adding query items")
    func urls() {
        let request = URL(string: "http://127.0.0.1:8080/api/v1/gallery/all?limit=24&offset=0")!
        #expect(NextPage.deviantArtOffset(24).url(after: request)?.absoluteString
            == "http://127.0.0.1:8080/api/v1/gallery/all?limit=24&offset=24")
        #expect(NextPage.redditAfter("t3_x").url(after: URL(string: "http://127.0.0.1/r/pics.json")!)?.absoluteString
            == "http://127.0.0.1/r/pics.json?after=t3_x")
        let ready = URL(string: "https://feed.example.com/p2.json")!
        #expect(NextPage.url(ready).url(after: request) == ready)
    }
}
