import ImagePipeline

extension ExitStatus {
    /// The one mapping from a failed load to an exit status, for every command (`render`,
    /// `list`, the browser's gallery): missing input 66 (HTTP 404 or 410, an unreadable file),
    /// unavailable 69 (the network, a timeout, another HTTP status, a redirect Vitrine does
    /// not follow, not in the disk cache offline, libvips missing for a format that needs it),
    /// bad data 65 (not an image, corrupt, too large, too many pixels, a format outside the
    /// decoders' allow-list), internal 70 (cancelled: nothing cancels a command's load).
    init(for error: ImagePipeline.Error) {
        switch error {
        case .httpStatus(404), .httpStatus(410), .file: self = .noInput
        case .httpStatus, .serverBusy, .network, .timedOut, .tooSlow, .unsupportedURL, .notCached, .decoderMissing:
            self = .unavailable
        case .notAnImage, .corrupt, .responseTooLarge, .tooManyPixels, .unsupportedFormat: self = .dataError
        case .cancelled: self = .software
        }
    }
}
