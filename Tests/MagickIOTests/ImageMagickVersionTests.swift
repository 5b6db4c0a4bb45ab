import CMagickWand
import Testing
@testable import MagickIO

@Suite("The ImageMagick underneath")
struct ImageMagickVersionTests {
    @Test("ImageMagick.version names the ImageMagick that runs: the line whose headers MagickIO was built with, Q16")
    func versionNamesTheLibrary() {
        let version = ImageMagick.version
        #expect(version.hasPrefix("ImageMagick \(MagickLibVersionText)"), "\(version)")
        #expect(version.contains(" Q16 "), "\(version)")
    }
}
