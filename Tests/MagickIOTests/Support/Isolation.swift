@testable import MagickIO

extension DecodingOptions {
    /// These options with decodes in the test's own process (``Isolation/inProcess``): for the
    /// tests of what happens inside a decode (its progress callbacks, its gate, its threads),
    /// which a decode worker's process keeps out of the test's sight.
    var inProcess: DecodingOptions {
        var options = self
        options.isolation = .inProcess
        return options
    }
}
