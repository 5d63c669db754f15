import HalfBlock

extension Viewport.Frame {
    /// The frame's pixels cut from an image already decoded in memory at `decodedShrink` (the
    /// whole image, `image.width / decodedShrink` wide): the region, scaled into the decode's
    /// coordinates, cropped and resampled to ``display``: an exact area average in linear light
    /// when shrinking (HalfBlock's `BoxFilter`), nearest neighbour when enlarging (crisp pixels
    /// past 1:1), a plain crop when the sizes match (a pan step at the decode's own scale).
    ///
    /// This is the zoom or pan step once the image is decoded: no decoder runs. Decode again
    /// (``ImagePipeline/decodeRegion``, or a whole decode at a smaller shrink) only when
    /// ``shrink`` drops below `decodedShrink`, i.e. the step needs more detail than is in memory.
    public func pixels(from decoded: RGBAImage, decodedShrink: Int) -> RGBAImage {
        let k = Double(max(1, decodedShrink))
        return pixels(from: decoded, shrinkX: k, shrinkY: k)
    }

    /// As ``pixels(from:decodedShrink:)`` for a decode of any size: `decoded` is the whole
    /// image of `imageSize` source pixels scaled to `decoded.width` x `decoded.height` (the
    /// pipeline's shrink-on-load to a box gives fractional factors, e.g. 4000 -> 1190).
    public func pixels(from decoded: RGBAImage, imageSize: PixelSize) -> RGBAImage {
        pixels(
            from: decoded, shrinkX: Double(max(1, imageSize.width)) / Double(max(1, decoded.width)),
            shrinkY: Double(max(1, imageSize.height)) / Double(max(1, decoded.height)))
    }

    func pixels(from decoded: RGBAImage, shrinkX kx: Double, shrinkY ky: Double) -> RGBAImage {
        let x0 = min(decoded.width - 1, max(0, Int((Double(region.x) / kx).rounded(.down))))
        let y0 = min(decoded.height - 1, max(0, Int((Double(region.y) / ky).rounded(.down))))
        let w = min(decoded.width - x0, max(1, Int((Double(region.width) / kx).rounded())))
        let h = min(decoded.height - y0, max(1, Int((Double(region.height) / ky).rounded())))
        let crop = Self.crop(decoded, x: x0, y: y0, width: w, height: h)
        if w == display.width && h == display.height { return crop }
        if display.width <= w && display.height <= h {
            return crop.pixels.withUnsafeBufferPointer {
                BoxFilter.resizeRGBA($0, width: w, height: h, toWidth: display.width, toHeight: display.height)
            }
        }
        return Self.nearest(crop, width: display.width, height: display.height)
    }

    /// `width` x `height` pixels of `image` from (x, y), which must lie inside it.
    static func crop(_ image: RGBAImage, x: Int, y: Int, width: Int, height: Int) -> RGBAImage {
        if x == 0 && y == 0 && width == image.width && height == image.height { return image }
        let rowBytes = width * 4
        let bytes = [UInt8](unsafeUninitializedCapacity: rowBytes * height) { out, count in
            image.pixels.withUnsafeBufferPointer { src in
                for row in 0..<height {
                    let from = ((y + row) * image.width + x) * 4
                    UnsafeMutableRawPointer(out.baseAddress! + row * rowBytes)
                        .copyMemory(from: src.baseAddress! + from, byteCount: rowBytes)
                }
            }
            count = rowBytes * height
        }
        return RGBAImage(width: width, height: height, pixels: bytes)
    }

    /// `image` enlarged (or squeezed) to `width` x `height` by nearest neighbour.
    static func nearest(_ image: RGBAImage, width: Int, height: Int) -> RGBAImage {
        let columns = (0..<width).map { min(image.width - 1, $0 * image.width / width) }
        let bytes = [UInt8](unsafeUninitializedCapacity: width * height * 4) { out, count in
            image.pixels.withUnsafeBufferPointer { src in
                src.withMemoryRebound(to: UInt32.self) { s in
                    UnsafeMutableRawPointer(out.baseAddress!).withMemoryRebound(to: UInt32.self, capacity: width * height) { o in
                        for row in 0..<height {
                            let sy = min(image.height - 1, row * image.height / height)
                            let base = sy * image.width
                            for col in 0..<width { o[row * width + col] = s[base + columns[col]] }
                        }
                    }
                }
            }
            count = width * height * 4
        }
        return RGBAImage(width: width, height: height, pixels: bytes)
    }
}
