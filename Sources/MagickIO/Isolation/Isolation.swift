/// Where a decode runs (``DecodingOptions/isolation``).
///
/// With ``process``, the default, every decode of a source (``ImageSource/thumbnail(maxPixelSize:at:allowUpscale:options:)-9fdwo``
/// and its siblings, ``ImageSource/image(at:)-64vjm``) runs in a decode worker: a process MagickIO starts
/// from the program's own executable (a C constructor takes it before the program's `main`, so
/// no second binary ships and nothing is configured), keeps and reuses. The kernel holds a worker's
/// data segment to the decode's ``DecodingOptions/memoryBudget`` on top of a fixed baseline
/// (`RLIMIT_DATA`), and MagickIO kills it when it runs past the time limit, or when its call is
/// cancelled, libheif's and libde265's decodes included. What comes back is the picture's pixels
/// and metadata through a memory file, never an encoded file; the host checks every length in
/// it. So a file that makes a third-party decoder allocate without bound, loop, or crash costs a
/// worker, never the program:
///
/// - a worker stopped for memory: ``MagickIOError/Kind/limitExceeded``, limit `memory`;
/// - one that ran past the time limit and its grace second: ``MagickIOError/Kind/limitExceeded``,
///   limit `time` (a worker stops itself between rows at the limit, as a decode in process does,
///   with ``MagickIOError/Kind/cancelled``);
/// - one that crashed: ``MagickIOError/Kind/corruptImage``, "the decoder crashed on this file".
///
/// ``inProcess`` decodes in the calling process, as MagickIO did before workers: for input the
/// program trusts, or where starting processes is not allowed. Properties
/// (``ImageSource/init(url:options:)``, ``ImageSource/properties(at:)``) are read in process either
/// way, by MagickIO's walkers, which bound what they read.
public enum Isolation: Sendable, Hashable, CaseIterable {
    /// In a decode worker process held to the budget and the time limit.
    case process
    /// In this process.
    case inProcess
}

extension ImageSource {
    /// Whether this source's decodes run in a decode worker: its options say so, and this process
    /// is not itself one.
    var isolatesDecodes: Bool {
        decodingOptions.isolation == .process && !Worker.isWorker
    }
}
