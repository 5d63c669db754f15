/// The loading animation: braille frames at 10 Hz (ASCII `|/-\` without Unicode).
public struct Spinner: Sendable {
    /// Milliseconds between frames.
    public static let interval = 100
    static let braille: [Unicode.Scalar] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]
    static let ascii: [Unicode.Scalar] = ["|", "/", "-", "\\"]

    private let frames: [Unicode.Scalar]
    /// Frame number, advanced by `tick()`.
    public private(set) var frame = 0

    public init(unicode: Bool) { frames = unicode ? Self.braille : Self.ascii }

    /// The glyph to draw now.
    public var glyph: Unicode.Scalar { frames[frame % frames.count] }

    /// Moves to the next frame.
    public mutating func tick() { frame &+= 1 }
}
