import CMagickWand

/// ImageMagick's process-wide resource limits.
///
/// ImageMagick keeps one set of limits per process, so these are global by design. MagickIO sets
/// one of them at start-up: ImageMagick's own OpenMP threads per operation are set to 1, because
/// MagickIO's callers parallelise across images (one image per thread scales better than OpenMP
/// inside each, and a server must not oversubscribe its cores).
public enum ResourceLimits {
    static func applyStartupDefaults() {
        MagickSetResourceLimit(ThreadResource, 1)
    }
}
