import ArgumentParser
import MagickIO

/// What `--size` takes: `WxH` (a side of 0 is left free, as ``ImageSize`` says).
struct SizeArgument: ExpressibleByArgument, Sendable {
    var size: ImageSize

    init?(argument: String) {
        let sides = argument.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard sides.count == 2, let width = Int(sides[0]), let height = Int(sides[1]),
              width >= 0, height >= 0, width + height > 0 else { return nil }
        size = ImageSize(width: width, height: height)
    }
}

/// What `--mode` takes (``SizingMode``).
enum ModeChoice: String, CaseIterable, ExpressibleByArgument, Sendable {
    case fit, fill, exact

    var mode: SizingMode {
        switch self {
        case .fit: .fit
        case .fill: .fill
        case .exact: .exact
        }
    }
}

/// What `--crop` takes (``ThumbnailOptions/Crop``).
enum CropChoice: String, CaseIterable, ExpressibleByArgument, Sendable {
    case center, attention, entropy

    var crop: ThumbnailOptions.Crop {
        switch self {
        case .center: .center
        case .attention: .attention
        case .entropy: .entropy
        }
    }
}

/// `--size`, `--mode` and `--crop`: a box rather than `--max-pixel-size`'s square fit.
struct SizingFlags: ParsableArguments, Sendable {
    @Option(help: ArgumentHelp("Box the thumbnail is sized into, WxH (a side of 0 is left free); replaces --max-pixel-size.",
                               valueName: "WxH"))
    var size: SizeArgument?

    @Option(help: ArgumentHelp("How the image goes into the box: fit inside it, fill it and crop the overflow, or exactly "
                               + "(aspect not kept). Without --size the box is N x N from --max-pixel-size.",
                               valueName: "fit|fill|exact"))
    var mode: ModeChoice = .fit

    @Option(help: ArgumentHelp("Where --mode fill crops: the centre, what draws the eye (attention) or the busiest part (entropy).",
                               valueName: "center|attention|entropy"))
    var crop: CropChoice = .center

    func validate() throws {
        guard crop == .center || mode == .fill else {
            throw ValidationError("--crop \(crop.rawValue) needs --mode fill (only fill crops).")
        }
    }

    /// The box for a run whose `--max-pixel-size` is `side`, or nil for the square fit.
    func box(side: Int) -> ImageSize? {
        size?.size ?? (mode == .fit ? nil : ImageSize(width: side, height: side))
    }
}
