internal import CMagickWand
import Foundation

/// ImageMagick's progress callback: go on unless the `Interrupt` passed as client data says stop.
private let progressMonitor: MagickProgressMonitor = { _, _, _, client in
    guard let client else { return MagickTrue }
    return Unmanaged<Interrupt>.fromOpaque(client).takeUnretainedValue().progressPoint() ? MagickTrue : MagickFalse
}

extension Wand {
    /// Routes the wand's reads (and the images they make) through `interrupt`'s checks, or removes
    /// the monitor with nil. The caller keeps `interrupt` alive while the wand works, and removes
    /// the monitor before the images outlive it.
    func monitor(_ interrupt: Interrupt?) {
        let client = interrupt.map { Unmanaged.passUnretained($0).toOpaque() }
        MagickSetProgressMonitor(pointer, interrupt == nil ? nil : progressMonitor, client)
        MagickResetIterator(pointer)
        while MagickNextImage(pointer) != MagickFalse {
            MagickSetImageProgressMonitor(pointer, interrupt == nil ? nil : progressMonitor, client)
        }
        MagickSetFirstIterator(pointer)
    }
}
