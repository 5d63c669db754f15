import Gallery
import HalfBlock
import ImagePipeline
import TerminalGraphics
import TerminalUI

/// The full-size view of one item: the image fitted to the screen, decoded at the size the
/// screen needs, with `n` / `p` stepping through the list in the order the gallery shows it
/// (filter and sort included).
///
/// Two ways to the screen. Half blocks (the default, and every terminal without a pixel
/// protocol): the image is decoded at twice the half-block grid and drawn on the canvas like
/// any text. Real pixels (``usePixels(_:context:)``: kitty, sixel, iTerm2): the image is
/// decoded for the area's pixels (cells times the cell's pixel size), the canvas only clears
/// the area, and ``terminalOutput(fullRepaint:)`` hands the presenter's bytes to the wiring,
/// which writes them after curses's refresh (never inside it). The picture is taken off the
/// screen (``removeOutput()``) when the view is left or covered, when the next image comes and
/// when the screen is resized; kitty's placement is put back after a full repaint.
///
/// Animated GIF and WebP play: the full decode asks for every frame (`ImageRequest.animated`,
/// decoded once at the screen's size, within `maxAnimationBytes`, delivered as they decode so
/// playing starts on the first frame), a ``FrameSchedule`` says which is shown (holding on the
/// last decoded frame when the next is not there yet), and the wiring wakes the main loop at
/// ``frameDue`` and calls
/// ``advanceFrame(now:)``, which redraws the image area alone (the status line stays as it is).
/// `a` pauses and resumes. Zoom and pan are off while an animation is shown (the status line
/// says so): its frames are decoded for the fit only.
@MainActor
public final class ImageView: BrowseView {
    /// The image's state.
    public enum Phase {
        case loading
        case loaded(DecodedImage)
        case failed(ImagePipeline.Error)
        case noImage
    }

    let model: BrowseModel
    /// The item shown.
    public private(set) var item: ItemID
    public private(set) var phase: Phase = .noImage
    /// The load in flight (its answer is the only one that counts).
    public private(set) var ticket: ImagePipeline.Ticket?
    /// Pixel box the image was requested at.
    private var requested = PixelSize(width: 0, height: 0)
    private var grid: CellGrid?
    /// Where a zoomed grid goes (cells from the top-left); nil: centred.
    private var gridOffset: (columns: Int, rows: Int)?
    private var lines = 24, columns = 80
    /// The pixel presenter (nil: half blocks on the canvas) and its terminal's cell size.
    private var presenter: (any ImagePresenter)?
    private var context: PresenterContext?
    /// Bumped whenever what the picture shows changes (a load, another item, a resize).
    private var generation = 0
    /// What the presenter has on screen: the generation, the area, and the bytes that drew it
    /// (re-sent after a full repaint by protocols whose pictures live in the cells).
    private var shown: (key: PictureKey, area: CellArea, bytes: [UInt8])?
    /// The pixel size of the sixel or iTerm2 picture last drawn (what of the cells it covers).
    private var shownPixels: PixelSize?
    /// The picture for the current state, cut and encoded for the presenter (by the worker or,
    /// without one, here), until it is put on the screen and after (for a picture taken off and
    /// put back: the help closed).
    private var ready: (key: PictureKey, encoded: EncodedPicture)?
    /// Cuts and encodes pictures off the main thread (set by the app; nil: here, at once, as
    /// the unit tests' harness runs).
    public var worker: PictureWorker?
    /// Writes kitty's pan regions in slices between the main loop's turns (set by the app with
    /// the worker; nil: a region goes out whole in the turn that places it).
    public var transmitter: TerminalWriter?
    /// The states of the pictures asked and not answered yet, by token (the worker answers in
    /// token order, and never a superseded request, so an answer retires every older token).
    private var unanswered: [Int: PictureKey] = [:]
    /// The state of the last picture asked of the worker while its answer is still to come: the
    /// newest token's entry in ``unanswered`` (nil once that token is answered).
    private var lastAsked: PictureKey? { unanswered.max { $0.key < $1.key }?.value }
    private var nextToken = 0
    /// Answers of the worker dropped because the state had changed before they came (tests).
    public private(set) var staleAnswers = 0
    /// Encoded frames of the animation shown (sixel and iTerm2: kitty keeps its frames in the
    /// terminal), by frame, for `encodedFramesGeneration`: the second and later loops only
    /// write them. At most ``maxEncodedFrameBytes`` bytes; frames past the cap are encoded on
    /// every loop.
    private var encodedFrames: [Int: EncodedPicture] = [:]
    private var encodedFramesGeneration = -1
    private var encodedFrameBytes = 0
    /// The cap on ``encodedFrames``, in bytes: 64 MiB, as much again as the decoded frames'
    /// cap (`ImagePipeline.Configuration.maxAnimationBytes`). Sixel frames are about a third of
    /// their RGBA size, iTerm2's PNG in base64 about as large as it.
    public static let maxEncodedFrameBytes = 64 << 20

    /// What a picture on screen shows: the item, the generation, the thumbnail preview or the
    /// decode, and the animation's frame.
    struct PictureKey: Equatable {
        var item: ItemID
        var generation: Int
        var preview: Bool
        var frame: Int
        /// The quick picture of a zoom or pan step while keys come, not the full-quality one sent
        /// once they stop (``settleDue``): iTerm2's JPEG, not its PNG; sixel's step from the pan
        /// region, not the view with a palette of its own.
        var lossy = false
    }
    /// When the keys have stopped long enough for the full-quality picture (``settleDelay``
    /// after the last zoom or pan step): iTerm2's lossless PNG (until then each step goes as a
    /// JPEG); sixel past the fit, the view encoded with a palette of its own (until then each
    /// step is cut from the pan region, one palette for the whole region). Nil when the picture
    /// shown is the full-quality one. The wiring wakes at ``frameDue``.
    private var settleDue: ContinuousClock.Instant?
    /// How long after the last zoom or pan step the iTerm2 picture goes lossless (and the sixel
    /// one gets its own palette): 250 ms, longer
    /// than a key repeat's interval (30-100 ms) and most taps' (docs/PERFORMANCE.md, "eighth part").
    public static let settleDelay = Duration.milliseconds(250)
    /// The time for the settle timer (tests inject theirs).
    var clock: () -> ContinuousClock.Instant = { .now }
    /// kitty's pan region (``Viewport/panRegion(maxPixels:)``): a part of the image larger than
    /// the area, sent once as one image, of which each pan step inside it places another part
    /// (a source rectangle, a few dozen bytes) instead of sending the pixels again. `basis`
    /// says what it was made for (the decode, zoom, area and cell size): any other basis needs
    /// a new region. `shownRegion` is the one the terminal has; `askedRegion` the one the worker
    /// is making; `readyRegion` the one it made, until it is sent.
    private var shownRegion: (basis: RegionBasis, frame: Viewport.Frame)?
    private var askedRegion: (token: Int, basis: RegionBasis, frame: Viewport.Frame)?
    private var readyRegion: (basis: RegionBasis, frame: Viewport.Frame, encoded: EncodedPicture)?
    /// Bumped by each decode taken (`loaded`): part of ``RegionBasis``.
    private var decodeSerial = 0
    /// The most screen pixels in a pan region's picture: 8 million (24 MB of RGB in kitty's
    /// memory, 32 MB of base64 sent once; kitty keeps up to 320 MB of images by default). A
    /// region of nine areas that would be larger gets smaller margins.
    public static let maxPanRegionPixels = 8_000_000
    /// Pan steps placed from the pan region without sending pixels, regions sent, and zoom
    /// steps shown from the region of another zoom scaled by the terminal (tests).
    public private(set) var panCounts = (placed: 0, regions: 0, scaled: 0)
    /// With a ``transmitter``: the region going out in slices (`a=t`, not placed; the old
    /// region stays on screen and steps inside it go on placing it), and the one fully out but
    /// not placed yet (placed by the next step it holds). `serial` tells a transmission's late
    /// callbacks from the current one's.
    private var sendingRegion: (basis: RegionBasis, frame: Viewport.Frame, id: UInt32, serial: Int)?
    private var sentRegion: (basis: RegionBasis, frame: Viewport.Frame, id: UInt32)?
    private var transmissionSerial = 0
    /// Regions asked before the view reached the shown one's edge (prefetch), and regions whose
    /// transmission was abandoned (tests).
    public private(set) var regionCounts = (prefetched: 0, abandoned: 0)

    /// Sixel's pan region (``SixelRegion``, a still image zoomed past the fit): one palette and
    /// the dithered indices of a part of the image around the view, made once by the worker
    /// with the step that asked for it, so that each later step inside it is only the band
    /// encoder over the visible rectangle's indices. `basis` as kitty's region's. `sixelRegion`
    /// is the one made; `askedSixelRegions` the ones asked of the worker, by token, until
    /// their answer (or a later one) comes.
    private var sixelRegion: (basis: RegionBasis, frame: Viewport.Frame, region: SixelRegion)?
    private var askedSixelRegions: [Int: (basis: RegionBasis, frame: Viewport.Frame)] = [:]
    /// The most screen pixels in a sixel pan region: 4 million (4 MB of indices; at 1:1 in
    /// 1200x780 pixels, a margin of half the view on each side, 2400x1560, four steps of an
    /// eighth of the view each way before a new region). Its making costs about four steps'
    /// dither and lookup, once (docs/PERFORMANCE.md, "ninth part, sixel").
    nonisolated public static let maxSixelRegionPixels = 4_000_000
    /// Sixel steps encoded from a pan region, regions made, and zoom steps drafted from the
    /// region of another zoom (tests).
    public private(set) var sixelRegionCounts = (steps: 0, regions: 0, scaled: 0)
    /// The sixel region being made ahead of the view (``PictureWorker/prefetchSixelRegion(source:cut:background:completion:)``),
    /// asked when a step from the region held comes within ``sixelPrefetchEighths`` of its
    /// edge; and how many were asked (tests).
    private var prefetchingSixelRegion: (basis: RegionBasis, frame: Viewport.Frame)?
    public private(set) var sixelPrefetches = 0
    /// How near an edge of the sixel region (that is not the image's) a step asks for the
    /// next region: a quarter of the view (2 eighths). The region's margin is half a view at
    /// 1:1 and a pan step an eighth, so a straight pan asks on its third step and the region
    /// centred there holds the view for four more; steps back and forth around the centre
    /// (an eighth each way) never ask.
    nonisolated static let sixelPrefetchEighths = 2
    /// The sixel pan region held and its frame (tests).
    var heldSixelRegion: (frame: Viewport.Frame, region: SixelRegion)? { sixelRegion.map { ($0.frame, $0.region) } }

    /// What a pan region is valid for: the same decode, zoom, area and cell size.
    struct RegionBasis: Equatable {
        var decode: Int
        var zoom: Viewport.Zoom
        var columns: Int
        var rows: Int
        var cell: PixelSize

        /// The scale of this basis's region when a zoom step to `other` can be drafted from it:
        /// the same decode, area and cell size at another zoom past the fit (nil otherwise).
        func draftScale(for other: RegionBasis) -> Double? {
            guard self != other, decode == other.decode, columns == other.columns, rows == other.rows,
                cell == other.cell, case .scale(let scale) = zoom
            else { return nil }
            return scale
        }
    }

    /// Zoom and pan over the loaded image (nil until it loads); see `Viewport`.
    public private(set) var viewport: Viewport?
    /// The full-resolution decode in flight for a zoom step that needs more detail than the
    /// screen's decode has.
    public private(set) var detailTicket: ImagePipeline.Ticket?
    /// The largest decode asked for a zoom step, in pixels (48 MB of RGBA at most).
    static let maxDetailPixels = 12_000_000
    /// Which frame of an animation is shown, and when the next is due (nil: a still image).
    public private(set) var schedule: FrameSchedule?
    /// Half-block renders of an animation's frames at fit, by frame, for `framesGeneration`.
    private var frameGrids: [Int: CellGrid] = [:]
    private var framesGeneration = -1
    /// A note for the status line until the next key ("zoom is off for animations").
    private var note: String?
    /// Zoom and pan keys typed while the decode loads, applied when it arrives (at most
    /// ``maxPendingZoom``; dropped when another item is shown).
    private var pendingZoom: [(action: Action, count: Int)] = []
    static let maxPendingZoom = 64
    /// The animation frame last drawn on the canvas and where (half blocks), so that the next
    /// frame rewrites only the cells that differ.
    private var lastFrameDrawn: (grid: CellGrid, top: Int, left: Int, generation: Int)?

    public init(model: BrowseModel, item: ItemID) {
        self.model = model
        self.item = item
    }

    public var kind: ViewKind { .image }

    /// Draws with `presenter` (a pixel protocol) instead of half blocks; `context` gives the
    /// cell size in pixels. Call before the first layout.
    public func usePixels(_ presenter: any ImagePresenter, context: PresenterContext) {
        self.presenter = presenter
        self.context = context
        // A new cell size (the font changed, or a resize reported other pixels per cell): the
        // zoom and the centre are kept, as for a resize; the next layout asks for a decode at
        // the new pixel box.
        if let viewport {
            self.viewport = viewport.withCell(cellPixels, columns: columns, rows: max(1, lines - 1))
        }
        shown = nil
        ready = nil
        generation += 1
    }

    /// The protocol the picture is drawn with.
    public var pixelProtocol: PixelProtocol { presenter?.pixelProtocol ?? .halfblock }

    /// The pixel box for the screen: with a pixel presenter the area's pixels (cells times the
    /// cell's pixel size: never more than the screen shows); with half blocks twice the
    /// half-block grid of the whole screen.
    var pixelBox: PixelSize {
        Sizes.decodeBox(
            for: CellSize(columns: columns, rows: lines - 1),
            cellPixels: context.map { PixelSize(width: $0.cellWidth, height: $0.cellHeight) })
    }

    public func layout(lines: Int, columns: Int) {
        self.lines = max(1, lines)
        self.columns = max(1, columns)
        grid = nil
        generation += 1
        viewport?.resize(columns: self.columns, rows: max(1, self.lines - 1))
        let box = pixelBox
        // The first layout loads; a screen larger than the one requested for loads again.
        if requested.width == 0 {
            load(reload: false)
        } else if case .loaded = phase, box.width > requested.width || box.height > requested.height {
            load(reload: false)
        }
    }

    /// Withdraws the loads in flight (the view is closing).
    public func close() {
        if let ticket { model.loader.cancel(ticket) }
        if let detailTicket { model.loader.cancel(detailTicket) }
        ticket = nil
        detailTicket = nil
    }

    private func load(reload: Bool) {
        close()
        grid = nil
        generation += 1
        viewport = nil
        settleDue = nil
        sixelRegion = nil
        let entry = model.items[item.index]
        guard let url = entry.imageURL ?? entry.thumbnailURL else {
            phase = .noImage
            return
        }
        let box = pixelBox
        requested = box
        let request = ImageRequest(
            url: url, maxPixelWidth: box.width, maxPixelHeight: box.height, reload: reload, animated: true)
        schedule = nil
        switch model.loader.load(request, priority: -1) {
        case .cached(let image): loaded(image)
        case .started(let t):
            ticket = t
            phase = .loading
        }
    }

    /// What applying a load did to the view.
    public enum Applied: Equatable {
        /// Not this view's ticket.
        case notThisView
        /// The picture changed (a decode, a failure, an animation's first frames): redraw.
        case redraw
        /// More frames of the animation playing: nothing to redraw now (the schedule shows
        /// them at their time, at once if it was holding for the next).
        case framesAdded
    }

    /// Applies a load's answer for `ticket`. `partial`: an animation still decoding
    /// (`ImagePipeline.NotificationKey.partial`), its frames so far; the first starts playing,
    /// later ones only add frames, and the final answer (not partial) ends the ticket.
    public func apply(
        _ ticket: ImagePipeline.Ticket, _ result: Result<DecodedImage, ImagePipeline.Error>, partial: Bool = false
    ) -> Applied {
        if ticket == detailTicket, !partial {
            detailTicket = nil
            // A failed detail decode keeps the screen's decode (the zoom stays, coarser).
            if case .success(let image) = result { loaded(image) }
            return .redraw
        }
        guard ticket == self.ticket else { return .notThisView }
        if !partial { self.ticket = nil }
        if case .success(let image) = result, addsFrames(image) {
            phase = .loaded(image)
            schedule?.framesAvailable(image.animation!.frames.count, at: .now)
            return .framesAdded
        }
        if partial {
            // The first frames of an animation: it starts playing; the rest join as they come.
            guard case .success(let image) = result, image.animation != nil else { return .framesAdded }
            loaded(image)
            return .redraw
        }
        switch result {
        case .success(let image): loaded(image)
        case .failure(let error): phase = .failed(error)
        }
        grid = nil
        generation += 1
        return .redraw
    }

    /// True when `image` is the animation playing with more frames decoded (the same load's
    /// later delivery): same frame size and delays, at least the frames shown.
    private func addsFrames(_ image: DecodedImage) -> Bool {
        guard case .loaded(let current) = phase, schedule != nil, let playing = current.animation,
            let more = image.animation, !playing.isComplete, more.delays == playing.delays,
            more.frames.count >= playing.frames.count, more.frames[0].width == playing.frames[0].width,
            more.frames[0].height == playing.frames[0].height
        else { return false }
        return true
    }

    /// Takes a decode of the item: the screen's or a detail decode (the viewport is kept when
    /// the image is the same).
    private func loaded(_ image: DecodedImage) {
        phase = .loaded(image)
        decodeSerial += 1
        grid = nil
        generation += 1
        let source = PixelSize(width: max(1, image.sourceWidth), height: max(1, image.sourceHeight))
        if viewport?.image != source {
            viewport = Viewport(image: source, columns: columns, rows: max(1, lines - 1), cell: cellPixels)
        }
        // An animation starts from its first frame (a new decode after a resize too).
        schedule = image.animation.map {
            FrameSchedule(delays: $0.delays, loopCount: $0.loopCount, start: .now, available: $0.frames.count)
        }
        // Zoom keys typed while it loaded take effect now (an animation says it has no zoom).
        let keys = pendingZoom
        pendingZoom = []
        for (action, count) in keys { _ = zoom(action, count: count) }
    }

    // MARK: Animation

    /// When the next frame of the animation shown is due; nil for a still image, a paused or
    /// finished animation, or while the view waits for its decode. The wiring's `poll` wakes
    /// then.
    public var frameDue: ContinuousClock.Instant? {
        guard case .loaded = phase else { return nil }
        guard let settleDue else { return schedule?.due }
        return min(schedule?.due ?? settleDue, settleDue)
    }

    /// Moves the animation to the frame due at `now`; true when it changed (the image area is
    /// to be redrawn, nothing else).
    /// An iTerm2 or sixel picture whose keys have stopped (``settleDue`` passed) goes to full
    /// quality the same way: true, and the next draw asks for its PNG (iTerm2) or for the view
    /// with a palette of its own (sixel).
    public func advanceFrame(now: ContinuousClock.Instant) -> Bool {
        if let due = settleDue, due <= now {
            settleDue = nil
            return true
        }
        guard case .loaded = phase, schedule != nil else { return false }
        return schedule!.advance(to: now)
    }

    /// The frame shown: 0 for a still image.
    public var frameIndex: Int {
        guard let schedule, case .loaded(let image) = phase, let animation = image.animation else { return 0 }
        return min(schedule.frame, animation.frames.count - 1)
    }

    /// The pixels shown for `image`: its current frame, or the bitmap of a still image.
    func frameBitmap(_ image: DecodedImage) -> RGBAImage {
        guard let animation = image.animation else { return image.bitmap }
        return animation.frames[min(frameIndex, animation.frames.count - 1)]
    }

    /// A cell's pixels for the viewport: the terminal's with a pixel presenter, a half block's
    /// two pixels (1x2) with half blocks, so 1:1 is one image pixel per half block.
    var cellPixels: PixelSize {
        context.map { PixelSize(width: $0.cellWidth, height: $0.cellHeight) } ?? PixelSize(width: 1, height: 2)
    }

    // MARK: Zoom and pan

    /// Applies a zoom or pan action to the viewport; a step that needs more detail than the
    /// decode in memory asks for the full-resolution decode (through the pipeline, off the main
    /// thread: its answer arrives like any load's) and is drawn from what is there meanwhile.
    func zoom(_ action: Action, count: Int) -> Reaction {
        guard var v = viewport, case .loaded(let image) = phase else {
            // While the decode loads (a new item, or again after a resize or a font change):
            // the keys are kept and applied, in order, when it arrives.
            guard case .loading = phase, pendingZoom.count < Self.maxPendingZoom else { return .none }
            pendingZoom.append((action, count))
            note = "zoom when loaded"
            return .redrawAll
        }
        if image.animation != nil {
            note = "no zoom or pan on an animation"
            return .none
        }
        let before = v
        switch action {
        case .zoomIn: for _ in 0..<count { v.zoomIn() }
        case .zoomOut: for _ in 0..<count { v.zoomOut() }
        case .zoomFit: v.fit()
        case .actualSize: v.actualSize()
        case .up, .down: v.pan(columns: 0, rows: (action == .up ? -1 : 1) * count * max(1, v.rows / 8))
        case .left, .right: v.pan(columns: (action == .left ? -1 : 1) * count * max(1, v.columns / 8), rows: 0)
        default: return .none
        }
        guard v != before else { return .none }
        viewport = v
        // iTerm2: a JPEG a step, the PNG once the keys stop. Sixel past the fit: a step from
        // the pan region (its one palette), the view with a palette of its own once they stop;
        // at the fit the step is already that (libsixel), so nothing settles.
        if presenter is ITermPresenter || (presenter is SixelPresenter && v.zoom != .fit) {
            settleDue = clock() + Self.settleDelay
        } else if presenter is SixelPresenter {
            settleDue = nil
        }
        grid = nil
        generation += 1
        requestDetailIfNeeded(image, scale: v.scale)
        return .redrawAll
    }

    /// Asks for a decode at the resolution `scale` needs when the one in memory has less (the
    /// whole image at full size, at most ``maxDetailPixels``).
    private func requestDetailIfNeeded(_ image: DecodedImage, scale: Double) {
        guard detailTicket == nil, image.sourceWidth > 0, image.sourceHeight > 0 else { return }
        let have = Double(image.bitmap.width) / Double(image.sourceWidth)
        guard scale > have * 1.01, image.bitmap.width < image.sourceWidth else { return }
        let entry = model.items[item.index]
        guard let url = entry.imageURL ?? entry.thumbnailURL else { return }
        let limit = min(1, (Double(Self.maxDetailPixels) / Double(image.sourceWidth * image.sourceHeight)).squareRoot())
        let width = max(1, Int(Double(image.sourceWidth) * limit)), height = max(1, Int(Double(image.sourceHeight) * limit))
        guard width > image.bitmap.width else { return }
        let request = ImageRequest(url: url, maxPixelWidth: width, maxPixelHeight: height)
        switch model.loader.load(request, priority: -1) {
        case .cached(let detail): loaded(detail)
        case .started(let t): detailTicket = t
        }
    }

    /// The frame's pixels and where they go (cells from the area's top-left), cut from the
    /// decode in memory; nil at fit with half blocks (drawn by the fitted render as before).
    private func zoomedPixels(_ image: DecodedImage) -> (pixels: RGBAImage, offset: (columns: Int, rows: Int))? {
        guard let viewport else { return nil }
        let frame = viewport.frame
        return (frame.pixels(from: frameBitmap(image), imageSize: viewport.image), frame.offset)
    }

    // MARK: Real pixels

    /// The row's thumbnail while the full image loads (shown scaled to the screen, then
    /// replaced), nil when it has none in memory.
    var preview: DecodedImage? {
        guard case .loading = phase, case .loaded(let thumbnail) = model.thumbnails.phase(item) else { return nil }
        return thumbnail
    }

    /// What is drawn: the decode, or the thumbnail while the decode loads.
    private var shownImage: (image: DecodedImage, isPreview: Bool)? {
        if case .loaded(let image) = phase { return (image, false) }
        return preview.map { ($0, true) }
    }

    /// The picture for the presenter: its key, the cells it covers (centred in the area above
    /// the status line at fit), and what it is cut from: the decode (or the animation's frame)
    /// by the viewport, the thumbnail fitted while the decode loads.
    private func wantedPicture() -> (key: PictureKey, area: CellArea, source: RGBAImage, cut: PictureWorker.Cut)? {
        guard let context, let (image, isPreview) = shownImage else { return nil }
        let height = max(1, lines - 1)
        let size = PixelSize(width: max(1, image.sourceWidth), height: max(1, image.sourceHeight))
        let frame: Viewport.Frame
        let source: RGBAImage
        if isPreview {
            frame = Viewport(image: size, columns: columns, rows: height, cell: cellPixels).frame
            source = image.bitmap
        } else {
            guard let viewport else { return nil }
            frame = viewport.frame
            source = frameBitmap(image)
        }
        let used = (
            columns: min(columns, (frame.display.width + context.cellWidth - 1) / context.cellWidth),
            rows: min(height, (frame.display.height + context.cellHeight - 1) / context.cellHeight))
        let area = CellArea(origin: (frame.offset.columns, frame.offset.rows), columns: used.columns, rows: used.rows)
        return (pictureKey, area, source, PictureWorker.Cut(frame: frame, imageSize: isPreview ? size : viewport!.image))
    }

    /// The encoded picture for `wanted`: the one ready, a frame of the animation encoded on an
    /// earlier loop, or, without a worker, made here at once. With a worker, nil until its
    /// answer comes (asked once per state; the picture on screen stays meanwhile).
    private func encodedPicture(
        for wanted: (key: PictureKey, area: CellArea, source: RGBAImage, cut: PictureWorker.Cut)
    ) -> EncodedPicture? {
        if let ready, ready.key == wanted.key { return ready.encoded }
        if !wanted.key.preview, schedule != nil, encodedFramesGeneration == generation,
            let frame = encodedFrames[wanted.key.frame]
        {
            ready = (wanted.key, frame)
            return frame
        }
        guard let presenter else { return nil }
        guard worker == nil || lastAsked != wanted.key else { return nil }
        var request = PictureWorker.Request(
            token: nextToken, source: wanted.source, cut: wanted.cut, encoder: encoder(for: wanted.key, presenter))
        // Sixel: the pan region only while keys come (`lossy`); the settled picture, and a
        // zoomed view drawn at rest (a resize, the full-size decode landing), is cut and
        // encoded alone with a palette of its own.
        if request.encoder.fastSixel, wanted.key.lossy, let asked = sixelStep(&request) {
            askedSixelRegions[nextToken] = asked
        } else if request.encoder.fastSixel, !wanted.key.lossy {
            prefetchSixelRegionAtRest()
        }
        guard let worker else {
            let result = request.make()
            took(result)
            keepFrame(result.encoded, for: wanted.key)
            ready = (wanted.key, result.encoded)
            return result.encoded
        }
        unanswered[nextToken] = wanted.key
        nextToken += 1
        worker.submit(request) { [weak self] result in self?.received(result) }
        return nil
    }

    /// Sixel, zoomed past the fit (`request` goes through the fast encoder): the step from the
    /// pan region when it holds the view; with a worker, a zoom step that the region of the
    /// last zoom holds is a draft scaled from that region (``SixelRegion/sixel(scaling:to:)``)
    /// and the new zoom's region is made ahead on the worker's second queue; else a new region
    /// around the view made with the step (its basis and frame returned, to be kept when the
    /// worker answers).
    private func sixelStep(_ request: inout PictureWorker.Request) -> (basis: RegionBasis, frame: Viewport.Frame)? {
        guard let viewport, let basis = currentBasis, case .loaded(let image) = phase, image.animation == nil else {
            return nil
        }
        if let held = sixelRegion, held.basis == basis, let rect = viewport.sourceRect(in: held.frame) {
            request.sixelRegion = .encode(held.region, rect: rect)
            sixelRegionCounts.steps += 1
            if prefetchingSixelRegion?.basis != basis, viewport.nearsEdge(of: held.frame, eighths: Self.sixelPrefetchEighths) {
                prefetchSixelRegion(image.bitmap, viewport: viewport, basis: basis)
            }
            return nil
        }
        if worker != nil, let held = sixelRegion, let heldScale = held.basis.draftScale(for: basis),
            let part = viewport.scaledSourceRect(in: held.frame, regionScale: heldScale)
        {
            // A zoom step with the region of another zoom held: a draft of the view scaled from
            // its indices (nearest neighbour, its palette; the band encoder's cost), while the
            // region at the new zoom is made on the second queue; the settled picture replaces
            // the draft with the view resampled from the decode.
            let size = PixelSize(width: part.columns * viewport.cell.width, height: part.rows * viewport.cell.height)
            request.sixelRegion = .encodeScaled(held.region, rect: part.rect, size: size)
            sixelRegionCounts.scaled += 1
            if prefetchingSixelRegion?.basis != basis { prefetchSixelRegion(image.bitmap, viewport: viewport, basis: basis) }
            return nil
        }
        let frame = viewport.panRegion(maxPixels: Self.maxSixelRegionPixels)
        guard let rect = viewport.sourceRect(in: frame) else { return nil }
        request.source = image.bitmap
        request.cut = PictureWorker.Cut(frame: frame, imageSize: viewport.image)
        request.sixelRegion = .make(rect: rect)
        return (basis, frame)
    }

    /// Sixel, a zoomed view drawn at rest (the settled picture, or a redraw with no step before
    /// it: the full-size decode landing, a resize) with no pan region for its basis: the region
    /// around the view is made ahead on the worker's second queue, so that the next step is the
    /// band encoder alone instead of paying the region (at 1:1 in 1200x780, 15-37 ms of CPU,
    /// docs/PERFORMANCE.md "ninth part, sixel"). Nothing without a worker, or with a region for
    /// the basis held, asked or being made.
    private func prefetchSixelRegionAtRest() {
        guard let viewport, let basis = currentBasis, case .loaded(let image) = phase,
            image.animation == nil, sixelRegion?.basis != basis, prefetchingSixelRegion?.basis != basis,
            !askedSixelRegions.values.contains(where: { $0.basis == basis })
        else { return }
        prefetchSixelRegion(image.bitmap, viewport: viewport, basis: basis)
    }

    /// Asks the worker's second queue for the sixel pan region around `viewport` of `source`
    /// for `basis` (``prefetched(_:basis:frame:)`` takes it); nothing without a worker.
    private func prefetchSixelRegion(_ source: RGBAImage, viewport: Viewport, basis: RegionBasis) {
        guard let worker, let context else { return }
        let frame = viewport.panRegion(maxPixels: Self.maxSixelRegionPixels)
        prefetchingSixelRegion = (basis, frame)
        sixelPrefetches += 1
        worker.prefetchSixelRegion(
            source: source, cut: PictureWorker.Cut(frame: frame, imageSize: viewport.image), background: context.background
        ) { [weak self] region in self?.prefetched(region, basis: basis, frame: frame) }
    }

    /// A sixel region made ahead of the view: it replaces the one held when it is still for
    /// the current basis and holds the view (else it is dropped: the view went elsewhere).
    private func prefetched(_ region: SixelRegion?, basis: RegionBasis, frame: Viewport.Frame) {
        if prefetchingSixelRegion.map({ $0.basis == basis && $0.frame == frame }) ?? false { prefetchingSixelRegion = nil }
        guard let region, basis == currentBasis, let viewport, viewport.sourceRect(in: frame) != nil else { return }
        sixelRegion = (basis, frame, region)
        sixelRegionCounts.regions += 1
    }

    /// Keeps the sixel pan region a result carries when it is still for the current basis;
    /// forgets the regions asked by this token and older ones (the worker answers in token
    /// order and never a superseded request).
    private func took(_ result: PictureWorker.Result) {
        if let region = result.sixelRegion, let asked = askedSixelRegions[result.token], asked.basis == currentBasis {
            sixelRegion = (asked.basis, asked.frame, region)
            sixelRegionCounts.regions += 1
        }
        askedSixelRegions = askedSixelRegions.filter { $0.key > result.token }
    }

    /// The presenter's encoder for the picture `key`; with sixel, a still image zoomed past the
    /// fit goes through Vitrine's own encoder (`PictureEncoder.fastSixel`: a pan step in a
    /// fraction of libsixel's time, docs/PERFORMANCE.md "sixth part").
    private func encoder(for key: PictureKey, _ presenter: any ImagePresenter) -> PictureEncoder {
        var encoder = presenter.encoder
        if presenter is SixelPresenter, !key.preview, schedule == nil, let viewport, viewport.zoom != .fit {
            encoder.fastSixel = true
        }
        // iTerm2, a zoom or pan step while keys come: a JPEG (an opaque picture), the PNG later.
        if presenter is ITermPresenter, key.lossy { encoder.itermJPEG = true }
        return encoder
    }

    /// The worker's answer, on the main thread: kept when the state it was asked for is still
    /// the one to show (the next turn's ``terminalOutput(fullRepaint:)``
    /// writes it), else dropped. An animation frame asked last is kept for the next loops even
    /// when the animation has moved on to another frame meanwhile, and shown (sixel, iTerm2).
    private func received(_ result: PictureWorker.Result) {
        // A sixel pan region is kept even when the step it came with is stale: later steps use it.
        took(result)
        let key = unanswered[result.token]
        unanswered = unanswered.filter { $0.key > result.token }
        guard let key else {
            staleAnswers += 1
            return
        }
        keepFrame(result.encoded, for: key)
        let current = pictureKey
        guard key == current else {
            if isLateFrame(key, current) {
                // The animation moved on while this frame was encoded (the encode is slower
                // than the frame delay): it is shown now, as the current frame, so playback
                // drops frames at the encoder's pace instead of never drawing one.
                ready = (current, result.encoded)
                return
            }
            staleAnswers += 1
            return
        }
        ready = (key, result.encoded)
    }

    /// True when `answer` is another frame of the animation now playing at `current` (same
    /// decode, neither the thumbnail preview), with a presenter whose frames are whole pictures
    /// (sixel, iTerm2; kitty numbers the frames it keeps, so a frame is never shown under
    /// another's number).
    private func isLateFrame(_ answer: PictureKey, _ current: PictureKey) -> Bool {
        schedule != nil && !answer.preview && !current.preview && answer.generation == generation
            && current.generation == generation && !(presenter is KittyPresenter)
    }

    /// Keeps an animation frame's encoding for the next loops (sixel and iTerm2), within
    /// ``maxEncodedFrameBytes``.
    private func keepFrame(_ encoded: EncodedPicture, for key: PictureKey) {
        guard schedule != nil, !key.preview, key.generation == generation, !(presenter is KittyPresenter) else { return }
        if encodedFramesGeneration != generation {
            encodedFrames = [:]
            encodedFrameBytes = 0
            encodedFramesGeneration = generation
        }
        guard encodedFrames[key.frame] == nil, encodedFrameBytes + encoded.byteCount <= Self.maxEncodedFrameBytes else { return }
        encodedFrames[key.frame] = encoded
        encodedFrameBytes += encoded.byteCount
    }

    /// Encoded animation frames kept for the next loops, and their bytes (tests).
    public var encodedFrameCache: (frames: Int, bytes: Int) {
        encodedFramesGeneration == generation ? (encodedFrames.count, encodedFrameBytes) : (0, 0)
    }

    /// The bytes to write to the terminal after curses's refresh: the presenter's picture when
    /// it changed (the old one removed first), the kitty placement again or the cells' picture
    /// again after a full repaint (`fullRepaint`: the view was drawn whole, which may have
    /// cleared the terminal), nothing otherwise. Empty with half blocks.
    public func terminalOutput(fullRepaint: Bool) -> [UInt8] {
        guard presenter != nil else { return [] }
        guard let wanted = wantedPicture() else { return removeOutput() }
        let (key, area) = (wanted.key, wanted.area)
        if let shown, shown.key == key, shown.area == area, !regionAwaited {
            guard fullRepaint else { return [] }
            if let kitty = presenter as? KittyPresenter { return kitty.replace(in: area) }
            return shown.bytes
        }
        let animationFrame = schedule != nil && !key.preview
        let overLast = shown.map { $0.area == area && $0.key.generation == key.generation && !$0.key.preview } ?? false
        // A frame kitty keeps is placed again without an encode.
        if animationFrame, overLast, !fullRepaint,
            let bytes = presenter!.showStoredFrame(number: key.frame, in: area)
        {
            shown = (key, area, bytes)
            return bytes
        }
        if let bytes = panRegionOutput(key: key, area: area, fullRepaint: fullRepaint) { return bytes }
        guard let encoded = encodedPicture(for: wanted) else {
            // The worker is making it: the picture on screen stays until it comes (put back
            // after a full repaint, which may have cleared it).
            guard fullRepaint, let shown else { return [] }
            if let kitty = presenter as? KittyPresenter { return kitty.replace(in: shown.area) }
            return shown.bytes
        }
        if overLast, !fullRepaint, animationFrame {
            // The next frame of the animation, over the last one in the same cells.
            let bytes = presenter!.showFrame(encoded: encoded, number: key.frame, in: area)
            self.shown = (key, area, bytes)
            return bytes
        }
        shownRegion = nil
        let pending = dropPendingRegion()
        if var kitty = presenter as? KittyPresenter, !animationFrame, !fullRepaint, shown?.area == area {
            // The same cells (a pan, the decode after the thumbnail): kitty places the new image
            // before it deletes the old one, so no blank frame shows between them.
            let bytes = kitty.showReplacing(encoded: encoded, in: area)
            presenter = kitty
            shown = (key, area, bytes)
            return pending + bytes
        }
        if !(presenter is KittyPresenter), !fullRepaint, shown?.area == area, encoded.opaque,
            covers(PixelSize(width: encoded.width, height: encoded.height), in: area)
        {
            // Sixel or iTerm2 (a pan step, the decode after the thumbnail): an opaque picture
            // over every pixel of the old one is drawn over it with no ECH blank first (a blank
            // frame between the two pictures flickered).
            let bytes = presenter!.showFrame(encoded: encoded, number: key.frame, in: area)
            self.shown = (key, area, bytes)
            shownPixels = PixelSize(width: encoded.width, height: encoded.height)
            return pending + bytes
        }
        var out = pending + removeOutput()
        // An animation's first picture goes out as a frame too (kitty keeps it for the loops).
        let bytes = animationFrame
            ? presenter!.showFrame(encoded: encoded, number: key.frame, in: area) : presenter!.show(encoded: encoded, in: area)
        shown = (key, area, bytes)
        shownPixels = PixelSize(width: encoded.width, height: encoded.height)
        out += bytes
        return out
    }

    /// True when a picture of `pixels` drawn at `area`'s origin covers every pixel of the one on
    /// screen there: it fills the area's cells, or it is at least as wide and as tall as the
    /// one shown (``shownPixels``). Sixel and iTerm2 pictures start at the area's top-left.
    private func covers(_ pixels: PixelSize, in area: CellArea) -> Bool {
        guard let context else { return false }
        if pixels.width == area.columns * context.cellWidth && pixels.height == area.rows * context.cellHeight { return true }
        guard let old = shownPixels else { return false }
        return pixels.width >= old.width && pixels.height >= old.height
    }

    /// kitty, a still image zoomed past the fit: the picture as a part of the pan region. A
    /// step inside the region the terminal has is a placement of another part (no pixels); a
    /// region the worker has made is sent (placed before the old image is deleted, so no blank
    /// frame); otherwise a new region around the visible one is asked of the worker (or made
    /// here without one) and the picture on screen stays until it comes. Nil when this does not
    /// apply (another protocol, the fit, an animation, the thumbnail): the caller goes on.
    private func panRegionOutput(key: PictureKey, area: CellArea, fullRepaint: Bool) -> [UInt8]? {
        guard var kitty = presenter as? KittyPresenter, !key.preview, schedule == nil,
            case .loaded(let image) = phase, image.animation == nil, let viewport, viewport.zoom != .fit
        else { return nil }
        let basis = RegionBasis(
            decode: decodeSerial, zoom: viewport.zoom, columns: viewport.columns, rows: viewport.rows, cell: viewport.cell)
        if let worker, transmitter != nil {
            return slicedRegionOutput(key: key, area: area, fullRepaint: fullRepaint, basis: basis, image: image, worker: worker)
        }
        if let region = shownRegion, region.basis == basis, let rect = viewport.sourceRect(in: region.frame),
            let bytes = kitty.showPart(rect, in: area)
        {
            presenter = kitty
            panCounts.placed += 1
            shown = (key, area, bytes)
            return bytes
        }
        if worker == nil, readyRegion?.basis != basis || readyRegion.flatMap({ viewport.sourceRect(in: $0.frame) }) == nil {
            // No worker (the unit tests' harness): made here at once.
            let frame = viewport.panRegion(maxPixels: Self.maxPanRegionPixels)
            let request = PictureWorker.Request(
                token: nextToken, source: image.bitmap, cut: PictureWorker.Cut(frame: frame, imageSize: viewport.image),
                encoder: kitty.encoder)
            readyRegion = (basis, frame, request.make().encoded)
        }
        if let ready = readyRegion, ready.basis == basis, let rect = viewport.sourceRect(in: ready.frame) {
            readyRegion = nil
            var out: [UInt8] = []
            let bytes: [UInt8]
            if !fullRepaint, shown?.area == area {
                bytes = kitty.showReplacing(encoded: ready.encoded, in: area, source: rect)
            } else {
                out = kitty.remove(from: shown?.area ?? area)
                bytes = kitty.showReplacing(encoded: ready.encoded, in: area, source: rect)
            }
            presenter = kitty
            shownRegion = (basis, ready.frame)
            panCounts.regions += 1
            shown = (key, area, bytes)
            return out + bytes
        }
        if let worker, askedRegion?.basis != basis || askedRegion.flatMap({ viewport.sourceRect(in: $0.frame) }) == nil {
            askRegion(basis: basis, image: image, worker: worker, encoder: kitty.encoder)
        }
        if let bytes = scaledRegionPreview(&kitty, key: key, area: area, basis: basis) { return bytes }
        // The region is being made: the picture on screen stays (put back after a full repaint).
        guard fullRepaint, shown != nil else { return [] }
        return kitty.replace(in: shown!.area)
    }

    /// kitty, a zoom step whose region is not there yet: the region on screen (another zoom of
    /// the same decode, area and cell size) placed again with the new view's part of it scaled
    /// by the terminal to the view's cells (``KittyPresenter/showScaledPart(_:columns:rows:in:)``),
    /// a placement of a few dozen bytes instead of waiting for the region (at 1:1 in 1200x780,
    /// 32 MB of base64, or a shared-memory object, docs/PERFORMANCE.md). The region at the new
    /// zoom, resampled from the decode, replaces it when it is out. Nil when the region on
    /// screen does not hold the new view (``Viewport/scaledSourceRect(in:regionScale:)``).
    private func scaledRegionPreview(_ kitty: inout KittyPresenter, key: PictureKey, area: CellArea, basis: RegionBasis) -> [UInt8]? {
        guard let part = scaledRegionPart(basis: basis),
            let bytes = kitty.showScaledPart(part.rect, columns: part.columns, rows: part.rows, in: area)
        else { return nil }
        presenter = kitty
        panCounts.scaled += 1
        shown = (key, area, bytes)
        return bytes
    }

    /// kitty: the part of the region on screen (another zoom of the same decode, area and cell
    /// size) that holds the view of `basis`, scaled to the view's cells
    /// (``Viewport/scaledSourceRect(in:regionScale:)``); nil when there is none to draft from.
    private func scaledRegionPart(basis: RegionBasis) -> (rect: Viewport.PixelRect, columns: Int, rows: Int)? {
        guard let region = shownRegion, let regionScale = region.basis.draftScale(for: basis), let viewport,
            viewport.zoom != .fit
        else { return nil }
        return viewport.scaledSourceRect(in: region.frame, regionScale: regionScale)
    }

    /// kitty, a zoom step into other cells (an image that does not fill the area at one of the
    /// two zooms): true when the step will be drafted from the region on screen
    /// (``scaledRegionPreview(_:key:area:basis:)``), so the image is not taken off before the
    /// refresh; the draft's placement (the same id and placement) moves it to the new cells.
    private var draftsIntoOtherCells: Bool {
        guard let kitty = presenter as? KittyPresenter, kitty.shownID != nil, schedule == nil, !pictureKey.preview,
            case .loaded(let image) = phase, image.animation == nil, let basis = currentBasis
        else { return false }
        return scaledRegionPart(basis: basis) != nil
    }

    /// The worker's pan region, on the main thread: kept when it is the one asked last (the
    /// next ``terminalOutput(fullRepaint:)`` sends it if the view is still inside it). With a
    /// ``transmitter`` it starts going out at once, in slices (`a=t`: not placed until every
    /// byte is out).
    private func receivedRegion(_ result: PictureWorker.Result) {
        guard let asked = askedRegion, asked.token == result.token else {
            staleAnswers += 1
            return
        }
        askedRegion = nil
        guard let transmitter, var kitty = presenter as? KittyPresenter else {
            readyRegion = (asked.basis, asked.frame, result.encoded)
            return
        }
        // Zoomed or resized meanwhile: not worth sending. (A view that was left is gone: the
        // worker's callback holds it weakly.)
        guard asked.basis == currentBasis else {
            staleAnswers += 1
            return
        }
        if let sent = sentRegion {
            sentRegion = nil
            transmitter.write(kitty.discard(id: sent.id))
        }
        let (id, bytes) = kitty.transmitOnly(result.encoded)
        presenter = kitty
        if result.encoded.kittyMedium != .direct {
            // Shared memory or a temporary file: one command of a few dozen bytes, no slices;
            // the next turn places it.
            transmitter.write(bytes)
            sentRegion = (asked.basis, asked.frame, id)
            return
        }
        transmissionSerial += 1
        let serial = transmissionSerial
        sendingRegion = (asked.basis, asked.frame, id, serial)
        transmitter.start(
            bytes, cleanup: kitty.abandon(id: id),
            done: { [weak self] in self?.regionSent(serial) }, aborted: { [weak self] in self?.regionAbandoned(serial) })
    }

    /// kitty: the picture on screen is a zoom step's draft scaled from the region of another
    /// zoom (``scaledRegionPreview(_:key:area:basis:)``) and the region for this zoom is out
    /// (or made): the next turn places it, though the picture's key has not changed.
    private var regionAwaited: Bool {
        guard let basis = currentBasis, let shownRegion, shownRegion.basis != basis else { return false }
        return sentRegion?.basis == basis || readyRegion?.basis == basis
    }

    /// The basis a pan region needs now (nil: none applies).
    private var currentBasis: RegionBasis? {
        guard let viewport else { return nil }
        return RegionBasis(
            decode: decodeSerial, zoom: viewport.zoom, columns: viewport.columns, rows: viewport.rows, cell: viewport.cell)
    }

    /// Transmission `serial` is out: its region is placed by the next turn that it holds.
    private func regionSent(_ serial: Int) {
        guard let sending = sendingRegion, sending.serial == serial else { return }
        sendingRegion = nil
        sentRegion = (sending.basis, sending.frame, sending.id)
    }

    /// Transmission `serial` was abandoned (the writer has deleted its image).
    private func regionAbandoned(_ serial: Int) {
        guard let sending = sendingRegion, sending.serial == serial else { return }
        sendingRegion = nil
        regionCounts.abandoned += 1
    }

    /// Abandons the region going out and deletes the one out but not placed: the bytes to
    /// write for the latter (the writer deletes the former itself).
    private func dropPendingRegion() -> [UInt8] {
        askedRegion = nil
        if sendingRegion != nil { transmitter?.abort() }
        sendingRegion = nil
        guard let sent = sentRegion, let kitty = presenter as? KittyPresenter else { return [] }
        sentRegion = nil
        return kitty.discard(id: sent.id)
    }

    /// The pan region with a ``transmitter``: as ``panRegionOutput(key:area:fullRepaint:)``,
    /// but a region goes out in slices between turns while the one on screen stays, and the
    /// next one is asked before the view leaves it (prefetch: when the view comes within half a
    /// visible region of an edge of the region that is not the image's). A step inside the
    /// region shown is one placement; the first step that a fully sent region holds places it
    /// (then deletes the old image); a step outside both waits, the old picture staying.
    private func slicedRegionOutput(
        key: PictureKey, area: CellArea, fullRepaint: Bool, basis: RegionBasis, image: DecodedImage, worker: PictureWorker
    ) -> [UInt8] {
        guard var kitty = presenter as? KittyPresenter, let viewport else { return [] }
        var out: [UInt8] = []
        if let sent = sentRegion {
            sentRegion = nil
            if sent.basis == basis, let rect = viewport.sourceRect(in: sent.frame) {
                if fullRepaint || shown?.area != area { out += kitty.remove(from: shown?.area ?? area) }
                out += kitty.placeTransmitted(id: sent.id, source: rect, in: area)
                presenter = kitty
                shownRegion = (basis, sent.frame)
                panCounts.regions += 1
                shown = (key, area, out)
                return out
            }
            out += kitty.discard(id: sent.id)
        }
        /// True when `frame` (of `basis`) holds the view.
        func holds(_ b: RegionBasis, _ frame: Viewport.Frame) -> Bool { b == basis && viewport.sourceRect(in: frame) != nil }
        let pendingHolds =
            askedRegion.map { holds($0.basis, $0.frame) } ?? false || sendingRegion.map { holds($0.basis, $0.frame) } ?? false
        if let region = shownRegion, region.basis == basis, let rect = viewport.sourceRect(in: region.frame),
            let bytes = kitty.showPart(rect, in: area)
        {
            presenter = kitty
            panCounts.placed += 1
            shown = (key, area, bytes)
            if !pendingHolds && viewport.nearsEdge(of: region.frame) {
                regionCounts.prefetched += 1
                askRegion(basis: basis, image: image, worker: worker, encoder: kitty.encoder)
            }
            return out + bytes
        }
        if !pendingHolds { askRegion(basis: basis, image: image, worker: worker, encoder: kitty.encoder) }
        if let bytes = scaledRegionPreview(&kitty, key: key, area: area, basis: basis) { return out + bytes }
        // The region is being made or sent: the picture on screen stays (put back after a full
        // repaint).
        guard fullRepaint, let shown else { return out }
        return out + kitty.replace(in: shown.area)
    }

    /// Asks the worker for a pan region around the view (the one going out, if any, is
    /// abandoned: one transmission at a time).
    private func askRegion(basis: RegionBasis, image: DecodedImage, worker: PictureWorker, encoder: PictureEncoder) {
        guard let viewport else { return }
        if sendingRegion != nil { transmitter?.abort() }
        sendingRegion = nil
        let frame = viewport.panRegion(maxPixels: Self.maxPanRegionPixels)
        let token = nextToken
        nextToken += 1
        askedRegion = (token, basis, frame)
        var encoder = encoder
        // Through shared memory or a temporary file when the terminal reads them (no base64).
        encoder.sharedMedium = context?.kittyMedium ?? .direct
        let request = PictureWorker.Request(
            token: token, source: image.bitmap, cut: PictureWorker.Cut(frame: frame, imageSize: viewport.image),
            encoder: encoder)
        worker.submit(request) { [weak self] result in self?.receivedRegion(result) }
    }

    /// The bytes that take a stale picture off the screen (another item, a resize, a load that
    /// replaced it), to be written before curses's refresh: a sixel or iTerm2 picture is blanked
    /// with ECH, which must not land on text curses has just drawn. Empty when nothing is stale.
    /// Another item's picture (`n`, `p`) always comes off here: the new item's picture may take
    /// seconds to encode (a heavy animation's first sixel frame), and the old one must not stay
    /// under the new item's status line meanwhile.
    public func staleOutput() -> [UInt8] {
        guard let shown, presenter != nil else { return [] }
        // A new picture of the same item over exactly the same cells (the decode replacing the
        // thumbnail, a pan) replaces the old one in the same write after the refresh: no blank
        // frame between.
        if shown.key.item == item, let current = wantedPicture(), current.area == shown.area {
            // In the cells (sixel, iTerm2) a smaller picture would leave a strip of the old one
            // (xterm keeps sixel pixels under erased cells): it comes off here, and the App
            // repaints the terminal whole this turn.
            guard showsPictureInCells, !covers(current.cut.frame.display, in: current.area) else { return [] }
        }
        // kitty, a zoom step from the region on screen to other cells: the draft moves the
        // placement there after the refresh (taken off here, the screen was blank until the
        // region at the new zoom was out: 6.5 MB of base64 for a 6000x500 image at 150%).
        if shown.key.item == item, draftsIntoOtherCells { return [] }
        return removeOutput()
    }

    /// True when a picture is on the screen and lives in the terminal's cells (sixel, iTerm2:
    /// kitty's live in placements, taken off by id). Erasing those cells does not always take
    /// all of it off (xterm keeps sixel pixels a curses update leaves alone and scrolls them back
    /// with the text), so the view that covers it repaints the screen whole.
    public var showsPictureInCells: Bool {
        shown != nil && presenter != nil && !(presenter is KittyPresenter)
    }

    /// Identifies the picture drawn.
    private var pictureKey: PictureKey {
        let preview = shownImage?.isPreview == true
        return PictureKey(
            item: item, generation: generation, preview: preview, frame: preview ? 0 : frameIndex,
            lossy: settleDue != nil && !preview)
    }

    /// The bytes that take the picture off the screen (the view is left, covered by the help,
    /// or exits); empty when none is shown. Write them before curses's refresh.
    public func removeOutput() -> [UInt8] {
        let pending = dropPendingRegion()
        // Pan regions handed to the terminal that it has not read go with their images.
        if context?.kittyMedium ?? .direct != .direct { KittySharedObject.unlinkOutstanding() }
        guard let area = shown?.area, presenter != nil else { return pending }
        shown = nil
        shownRegion = nil
        return pending + presenter!.remove(from: area)
    }

    /// The bytes that take the picture off while the pane is off screen (tmux shows another
    /// window), to be put back by ``terminalOutput(fullRepaint:)`` with `fullRepaint` once it
    /// shows again: kitty's placement is deleted with its data kept (`d=i`: placed again by id,
    /// no pixels sent); sixel and iTerm2 pictures live in the cells tmux has drawn over
    /// (nothing to send: an erase now would land on the other window's cells).
    /// The top-left cell of the picture on screen (0-based column, row), nil when none is.
    public var pictureOrigin: (column: Int, row: Int)? { shown?.area.origin }

    /// `wrapped`: in tmux's passthrough when the presenter wraps (false: the bare command, for
    /// the terminal's own tty).
    public func hideOutput(wrapped: Bool = true) -> [UInt8] {
        guard let kitty = presenter as? KittyPresenter, shown != nil, let id = kitty.shownID else { return [] }
        let delete = KittyGraphics.delete(id: id, freeData: false)
        return wrapped && kitty.context.tmuxPassthrough ? Passthrough.tmux(delete) : delete
    }

    public func handle(_ action: Action, count: Int?) -> Reaction {
        note = nil
        switch action {
        case .toggleAnimation:
            guard case .loaded(let image) = phase, image.animation != nil, schedule != nil else {
                note = "not an animation"
                return .none
            }
            schedule!.togglePause(at: .now)
            return .none
        case .zoomIn, .zoomOut, .zoomFit, .actualSize, .up, .down, .left, .right:
            return zoom(action, count: max(1, min(count ?? 1, 1000)))
        case .back:
            close()
            return .pop
        case .next, .previous:
            guard let p = model.list.position(of: item) else { return .none }
            let target = p + (action == .next ? 1 : -1) * max(1, count ?? 1)
            guard target >= 0, target < model.list.count else { return .none }
            item = model.list[target]
            pendingZoom = []
            load(reload: false)
            return .redrawAll
        case .retry:
            load(reload: true)
            return .redrawAll
        default:
            return .none
        }
    }

    public var animating: Bool {
        if case .loading = phase { return true }
        return false
    }

    public func tick() -> Reaction { .redrawAll }

    public func draw(on canvas: any Canvas, items: Set<ItemID>?) {
        let height = max(1, lines - 1)
        let entry = model.items[item.index]
        var art: CellGrid?
        var message: (String, Screen.Role)?
        switch phase {
        case .loaded where presenter != nil:
            // Real pixels: the canvas keeps the area blank; the presenter draws over it.
            break
        case .loaded(let image) where viewport.map({ $0.zoom != .fit }) ?? false:
            // Zoomed: the frame cut from the decode, one half-block pixel per pixel.
            if grid == nil, let (pixels, offset) = zoomedPixels(image) {
                let rendered = HalfBlockRenderer.render(
                    pixels, columns: max(1, pixels.width), rows: max(1, (pixels.height + 1) / 2),
                    options: RenderOptions(colorMode: model.colorMode, background: model.background))
                grid = rendered
                gridOffset = offset
            }
            art = grid
        case .loaded(let image) where image.animation != nil:
            // An animation's frame, each rendered once per layout.
            gridOffset = nil
            if framesGeneration != generation {
                frameGrids = [:]
                framesGeneration = generation
            }
            let f = frameIndex
            if frameGrids[f] == nil {
                let fitted = HalfBlockRenderer.fittedSize(
                    imageWidth: image.sourceWidth, imageHeight: image.sourceHeight, maxColumns: columns, maxRows: height)
                frameGrids[f] = HalfBlockRenderer.render(
                    frameBitmap(image), columns: fitted.columns, rows: fitted.rows,
                    options: RenderOptions(colorMode: model.colorMode, background: model.background))
            }
            art = frameGrids[f]
            let top = (height - art!.rows) / 2, left = (columns - art!.columns) / 2
            // The next frame over the last one (a frame step draws the view alone, `items` not
            // nil; a full draw passes nil): only the cells that changed are put, which for a
            // moving subject over a still background is a small part of the picture.
            if items != nil, let last = lastFrameDrawn, last.generation == generation, last.top == top,
                last.left == left, last.grid.columns == art!.columns, last.grid.rows == art!.rows
            {
                let new = art!
                for row in 0..<new.rows where top + row < height {
                    for column in 0..<new.columns {
                        let cell = new[column, row]
                        if cell != last.grid[column, row] {
                            canvas.put(cell.glyph, y: top + row, x: left + column, foreground: cell.foreground, background: cell.background, role: .normal)
                        }
                    }
                }
                lastFrameDrawn = (new, top, left, generation)
                return
            }
            lastFrameDrawn = (art!, top, left, generation)
        case .loaded(let image):
            gridOffset = nil
            if grid == nil {
                let fitted = HalfBlockRenderer.fittedSize(
                    imageWidth: image.sourceWidth, imageHeight: image.sourceHeight, maxColumns: columns, maxRows: height)
                grid = HalfBlockRenderer.render(image.bitmap, columns: fitted.columns, rows: fitted.rows, options: RenderOptions(colorMode: model.colorMode, background: model.background))
            }
            art = grid
        case .loading where preview != nil && presenter != nil:
            // The thumbnail in pixels is the presenter's; the status line says it is loading.
            break
        case .loading where preview != nil:
            // The row's thumbnail scaled to the screen until the decode arrives.
            let thumbnail = preview!
            let fitted = HalfBlockRenderer.fittedSize(
                imageWidth: thumbnail.sourceWidth, imageHeight: thumbnail.sourceHeight, maxColumns: columns, maxRows: height)
            art = HalfBlockRenderer.render(
                thumbnail.bitmap, columns: fitted.columns, rows: fitted.rows,
                options: RenderOptions(colorMode: model.colorMode, background: model.background))
            gridOffset = nil
        case .loading:
            message = ("loading…", .spinner)
        case .failed(let error):
            message = ("✗ \(error)", .error)
        case .noImage:
            // An item whose URL was refused says why; one without any URL says so.
            message = entry.problem.map { ("✗ \($0)", .error) } ?? ("no image URL", .dim)
        }
        // Every line is rewritten in place (never cleared first), so only changed cells reach
        // the terminal.
        let top = art.map { gridOffset?.rows ?? (height - $0.rows) / 2 } ?? 0
        let left = art.map { gridOffset?.columns ?? (columns - $0.columns) / 2 } ?? 0
        for y in 0..<height {
            if let art, y >= top, y < top + art.rows {
                canvas.clear(y: y, x: 0, width: left)
                canvas.clear(y: y, x: left + art.columns, width: columns - left - art.columns)
            } else {
                canvas.clear(y: y, x: 0, width: columns)
            }
        }
        if let art { canvas.draw(art, y: top, x: left) }
        if let (text, role) = message {
            if case .loading = phase {
                canvas.put(model.spinner.glyph, y: height / 2, x: columns / 2 - 5, foreground: .terminalDefault, background: .terminalDefault, role: .spinner)
            }
            canvas.text(text, y: height / 2, x: max(0, (columns - DisplayWidth.width(text)) / 2), width: columns, role: role)
        }
    }

    public func status() -> (left: String, right: String) {
        let entry = model.items[item.index]
        var size = ""
        if case .loaded(let image) = phase { size = "\(image.sourceWidth) × \(image.sourceHeight)" }
        let url = (entry.imageURL ?? entry.thumbnailURL)?.absoluteString ?? ""
        let position = (model.list.position(of: item) ?? 0) + 1
        let loading = preview != nil ? "\(model.spinner.glyph) loading  " : ""
        let playing = animationText.map { $0 + "  " } ?? ""
        let right = "\(loading)\(playing)\(zoomText.map { $0 + "  " } ?? "")\(position)/\(model.list.count)  n/p q"
        // Title and size first; the URL gets what is left, cut in the middle so the file name
        // at its end stays visible. A pixel protocol tmux drops says so before the title (the
        // picture area stays blank: the hint is why).
        let hint = presenter != nil ? model.pixelsHint.map { " \($0) " } ?? "" : ""
        let head = "\(note.map { " \($0) " } ?? "")\(hint) \(entry.title)  \(size.isEmpty ? "" : size + "  ")"
        let room = columns - DisplayWidth.width(right) - 2 - DisplayWidth.width(head)
        return (head + Self.middleTruncated(url, columns: room), right)
    }

    /// The animation for the status line, the same while it plays (so the status line is not
    /// redrawn with every frame): `▶ 12 frames` playing (`▶ 12 of 48 frames` when the byte cap
    /// kept every 4th), `⏸ 3/12` paused on frame 3, `■ 12 frames` when its plays are over; nil
    /// for a still image.
    var animationText: String? {
        guard case .loaded(let image) = phase, let animation = image.animation, let schedule else { return nil }
        let count = animation.frameCount
        var frames = animation.step > 1 ? "\(count) of \(animation.sourceFrameCount) frames" : "\(count) frames"
        // While the rest decode (the schedule holds on the last decoded frame when it must).
        if !animation.isComplete { frames += ", \(animation.frames.count) decoded" }
        if schedule.paused { return "⏸ \(frameIndex + 1)/\(count)" }
        return schedule.isPlaying ? "▶ \(frames)" : "■ \(frames)"
    }

    /// The zoom for the status line: `fit 25%` at fit, else ``Viewport/statusText`` (`200% ·
    /// 1600,1200 800x600 of 4000x3000`), with `…` while the detail decode loads.
    var zoomText: String? {
        guard let viewport, case .loaded(let image) = phase else { return nil }
        let loading = detailTicket == nil ? "" : " …"
        guard viewport.zoom == .fit else { return viewport.statusText + loading }
        // Half blocks at fit are drawn by the fitted render, which may enlarge a small image.
        var scale = viewport.scale
        if presenter == nil {
            let fitted = HalfBlockRenderer.fittedSize(
                imageWidth: image.sourceWidth, imageHeight: image.sourceHeight, maxColumns: columns, maxRows: max(1, lines - 1))
            scale = Double(fitted.columns) / Double(max(1, image.sourceWidth))
        }
        return "fit \(Int((scale * 100).rounded()))%" + loading
    }

    /// `text` cut to `columns` by replacing its middle with "…" (URLs: keep host and file name).
    static func middleTruncated(_ text: String, columns: Int) -> String {
        let scalars = Array(text.unicodeScalars)
        guard scalars.count > columns else { return text }
        guard columns > 3 else { return "" }
        let tail = (columns - 1) * 2 / 3
        let head = columns - 1 - tail
        var out = String.UnicodeScalarView()
        out.append(contentsOf: scalars[0..<head])
        out.append("…")
        out.append(contentsOf: scalars[(scalars.count - tail)...])
        return String(out)
    }
}
