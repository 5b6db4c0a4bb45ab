internal import CMagickCompat
internal import CMagickWand
import Foundation

/// Process-wide ImageMagick start-up, run once (Swift runs a global's initialiser exactly once,
/// thread-safely) before the first MagickWand call.
let magickRuntime: MagickIOError? = {
    // Before genesis, so that every decode's ImageMagick heap can be counted (HeapBudget).
    HeapBudget.install()
    MagickWandGenesis()
    // ImageMagick's default handlers print to stderr. Everything it reports is read back from the
    // wand or image exception instead, so the handlers do nothing.
    // (Both return the handler they replace, not a status.)
    _ = SetWarningHandler { _, _, _ in }
    _ = SetErrorHandler { _, _, _ in }
    // Headers and library must agree on the quantum (Debian's Q16 without HDRI, which shim.h
    // states because SwiftPM drops pkg-config's -D flags): another build lays pixels out otherwise.
    if let mismatch = cmc_build_mismatch() {
        var number = 0
        let version = MagickGetVersion(&number).map { String(cString: $0) } ?? "ImageMagick"
        return MagickIOError(.unsupportedFormat, "\(String(cString: mismatch)) (\(version)): MagickIO reads nothing with it")
    }
    ImageMagick.applySecurityPolicy(decoders: ImageMagick.defaultAllowedDecoders)
    return MagickResources.set(ResourceLimits.safeDefaults, starting: false)
}()

/// The thread-specific slot of `Wand.withThreadWand`; its destructor destroys a thread's wand when
/// the thread exits.
let threadWandKey: pthread_key_t = {
    var key = pthread_key_t()
    pthread_key_create(&key) { slot in
        if let slot { Unmanaged<Wand>.fromOpaque(slot).release() }
    }
    return key
}()

enum MagickRuntime {
    /// Makes sure `MagickWandGenesis` has run; every entry point calls this first.
    @inline(__always)
    static func start() {
        _ = magickRuntime
    }

    /// Throws when start-up could not put MagickIO's resource limits in force, or ImageMagick
    /// refused the security policy last applied: no coder may then run (fail closed).
    static func checkSecurityPolicy() throws(MagickIOError) {
        if let failure = magickRuntime { throw failure }
        if let refusal = ImageMagick.securityPolicyRefusal.withLock({ $0 }) { throw refusal }
    }
}

