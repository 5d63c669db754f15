extension HalfBlockRenderer {
    /// Decoded pixels per half-block pixel, along each axis, that a caller should ask its decoder
    /// for before ``render(_:columns:rows:options:)``.
    ///
    /// The box filter averages in linear light, but a decoder's own shrink (JPEG DCT scaling,
    /// libvips's resize) averages gamma-encoded values; the more of the shrink the box filter
    /// does, the closer the picture gets to a linear-light reference. Measured with
    /// `scripts/quality.sh`-style runs at 80x40 (PSNR against the linear reference, release CPU
    /// time, see `docs/PERFORMANCE.md`): 2 → 34.5 dB, 4 → 37.2 dB, 8 → 39.4 dB on a 4000x3000
    /// JPEG, while CPU time grew 132 → 144 → 165 ms. 4 keeps most of the quality for little time.
    public static let decodeOversampling = 4

    /// The pixel box to decode a picture in for a box of at most `columns` x `rows` cells
    /// (`oversampling` decoded pixels per half-block pixel along each axis). A decoder that
    /// shrinks to fit this box, aspect kept, never enlarged, hands the renderer enough pixels.
    public static func decodeBox(columns: Int, rows: Int, oversampling: Int = decodeOversampling) -> PixelSize {
        let k = max(1, oversampling)
        return PixelSize(width: max(1, columns) * k, height: max(1, rows) * 2 * k)
    }
}
