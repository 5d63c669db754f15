import Testing
@testable import HalfBlock

@Suite("LinearLight and BoxWeights")
struct LinearLightTests {
    @Test("Encoding is exact round-to-nearest and inverts decoding for every byte")
    func roundTrip() {
        // Given every 8-bit value; When decoded and re-encoded; Then it is unchanged
        for v in 0...255 {
            #expect(LinearLight.encode8(LinearLight.table[v]) == UInt8(v))
        }
        // And linear 0.5 is 188 (187.516 rounds up), black and white clamp
        #expect(LinearLight.encode8(0.5) == 188)
        #expect(LinearLight.encode8(-1) == 0 && LinearLight.encode8(2) == 255 && LinearLight.encode8(.nan) == 0)
        #expect(abs(LinearLight.table[128] - 0.2158605) < 1e-6)
    }

    @Test("Encoding matches the IEC 61966-2-1 formula across the range")
    func matchesFormula() {
        // Given 10001 linear values; When encoded; Then each equals the rounded formula
        for i in 0...10_000 {
            let l = Float(i) / 10_000
            let expected = UInt8((LinearLight.encode(Double(l)) * 255).rounded())
            #expect(LinearLight.encode8(l) == expected)
        }
    }

    @Test("Box weights cover fractional pixels and sum to one")
    func boxWeights() {
        // Given 10 input pixels to 3 outputs (3.33 pixels each)
        let w = BoxWeights(inputLength: 10, outputLength: 3)
        // Then output 0 reads pixels 0-3 and pixel 3 weighs 0.1 there and 0.2 in output 1
        #expect(w.first == [0, 3, 6])
        #expect(w.weights[3] == Float(0.1))
        #expect(w.weights[w.offsets[1]] == Float(0.2))
        for o in 0..<3 {
            let sum = w.weights[w.offsets[o]..<w.offsets[o + 1]].reduce(0, +)
            #expect(abs(sum - 1) < 1e-6)
        }
    }

    @Test("Upscaling weights straddle at most two pixels")
    func upscaleWeights() {
        // Given 3 input pixels to 4 outputs
        let w = BoxWeights(inputLength: 3, outputLength: 4)
        // Then output 1 is 1/3 of pixel 0 and 2/3 of pixel 1
        #expect(w.first == [0, 0, 1, 2])
        #expect(Array(w.weights[w.offsets[1]..<w.offsets[2]]) == [Float(1.0 / 3.0), Float(2.0 / 3.0)])
    }
}
