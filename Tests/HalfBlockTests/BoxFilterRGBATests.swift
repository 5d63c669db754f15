import Testing

@testable import HalfBlock

@Suite("BoxFilter.resizeRGBA")
struct BoxFilterRGBATests {
    /// `BoxFilter.resizeRGBA` over an image's bytes.
    func shrink(_ image: RGBAImage, _ width: Int, _ height: Int) -> RGBAImage {
        image.pixels.withUnsafeBufferPointer {
            BoxFilter.resizeRGBA($0, width: image.width, height: image.height, toWidth: width, toHeight: height)
        }
    }

    @Test("A 1-px black/white checker shrinks to grey 188, not 127")
    func checkerIsLinearGrey() {
        // Given an 8x6 one-pixel black/white checkerboard
        let image = makeImage(8, 6) { x, y in (x + y) % 2 == 0 ? .black : .white }
        // When it is shrunk to 4x3 (2x2 blocks) and to 2x2 (4x3 blocks)
        let half = shrink(image, 4, 3)
        let quarter = shrink(image, 2, 2)
        // Then every pixel is linear 0.5 (sRGB 188), opaque
        let mid: [UInt8] = [188, 188, 188, 255]
        #expect(half.width == 4 && half.height == 3)
        #expect(half.pixels == Array(repeating: mid, count: 4 * 3).flatMap { $0 })
        #expect(quarter.width == 2 && quarter.height == 2)
        #expect(quarter.pixels == Array(repeating: mid, count: 2 * 2).flatMap { $0 })
    }

    @Test("Alpha is the rounded mean coverage; colours under transparency never leak")
    func premultiplied() {
        // Given opaque red beside fully transparent green, and a fully transparent pair
        let image = makeImage(4, 1, [.red, Pixel(0, 255, 0, 0), Pixel(0, 0, 255, 0), .clear])
        // When each pair is averaged into one pixel
        let out = shrink(image, 2, 1)
        // Then the first is pure red at half coverage (127.5 rounds to even 128), the second
        // (0, 0, 0, 0) whatever colour it hid
        #expect(out.pixels == [255, 0, 0, 128, 0, 0, 0, 0])
    }

    @Test("Bytes are the renderer's linear average, encoded with un-premultiply and round-to-nearest")
    func matchesLinearResize() {
        // Given a 37x23 image of varied colours and alphas
        let image = makeImage(37, 23) { x, y in
            Pixel(
                UInt8((x * 53 + y * 7) % 256), UInt8((x * 11 + y * 91) % 256), UInt8((x * y) % 256),
                UInt8((x * 29 + y * 13) % 256))
        }
        // When shrunk to 10x7 both ways
        let bytes = shrink(image, 10, 7)
        let linear = BoxFilter.resize(image, width: 10, height: 7)
        // Then each byte pixel is the float pixel divided by its alpha and encoded
        for y in 0..<7 {
            for x in 0..<10 {
                let v = linear[x, y]
                let alpha = (v.w * 255).rounded(.toNearestOrEven)
                let expected: [UInt8] =
                    alpha > 0
                    ? [
                        LinearLight.encode8(v.x / v.w), LinearLight.encode8(v.y / v.w), LinearLight.encode8(v.z / v.w),
                        UInt8(alpha),
                    ]
                    : [0, 0, 0, 0]
                let i = (y * 10 + x) * 4
                #expect(Array(bytes.pixels[i..<i + 4]) == expected)
            }
        }
    }
}
