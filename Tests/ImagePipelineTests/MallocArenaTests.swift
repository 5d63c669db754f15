import Testing

#if canImport(Glibc)
import Glibc
#endif

@testable import ImagePipeline

@Suite("Malloc arenas")
struct MallocArenaTests {
    @Test("the arena cap is set through glibc's mallopt, unless MALLOC_ARENA_MAX already says")
    func arenaCap() {
        // A user's MALLOC_ARENA_MAX wins: nothing is set
        #expect(ImagePipeline.limitMallocArenas(to: 2, environment: ["MALLOC_ARENA_MAX": "4"]) == false)
        // Otherwise mallopt accepts the cap (it returns 1 on success), where glibc's malloc is
        // the allocator's: AddressSanitizer brings its own malloc, whose mallopt refuses
        // everything (ThreadSanitizer's leaves mallopt to glibc, which accepts it)
        let asan = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "__asan_init") != nil
        #expect(ImagePipeline.limitMallocArenas(to: 8, environment: [:]) == !asan)
    }
}
