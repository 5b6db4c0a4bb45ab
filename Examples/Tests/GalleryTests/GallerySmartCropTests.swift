import Foundation
import Hummingbird
import HummingbirdTesting
import MagickIO
import Testing
@testable import gallery

@Suite("Gallery: square crops and dominant colours")
struct GallerySmartCropTests {
    @Test("?crop= gives an upright square fill, cached and tagged apart from the fitted thumbnail and other crops")
    func squareCrops() async throws {
        let folder = try GalleryFolder()
        try await folder.application().test(.live) { client in
            var tags: Set<String> = []
            for crop in ["attention", "entropy", "center"] {
                try await client.execute(uri: "/thumbnails/turned.jpg?size=32&crop=\(crop)", method: .get) { response in
                    #expect(response.status == .ok)
                    let image = try ImageSource(data: Data(buffer: response.body)).image(at: 0)
                    #expect(image.width == 32 && image.height == 32 && image.orientation == .up, "\(crop)")
                    // The EXIF-6 quadrants upright: red at the top left, yellow at the bottom right
                    // whichever 64x64 window of the 96x64 picture was kept.
                    let pixels = try image.pixels(.rgba8)
                    func rgb(_ x: Int, _ y: Int) -> (r: UInt8, g: UInt8, b: UInt8) {
                        let i = y * pixels.bytesPerRow + x * 4
                        return (pixels.bytes[i], pixels.bytes[i + 1], pixels.bytes[i + 2])
                    }
                    let topLeft = rgb(2, 2), bottomRight = rgb(29, 29)
                    #expect(topLeft.r > 200 && topLeft.g < 60 && topLeft.b < 60, "\(crop): \(topLeft)")
                    #expect(bottomRight.r > 200 && bottomRight.g > 200 && bottomRight.b < 60, "\(crop): \(bottomRight)")
                    tags.insert(try #require(response.headers[.eTag]))
                }
            }
            let fitted = try await client.execute(uri: "/thumbnails/turned.jpg?size=32", method: .get) { response in
                #expect(response.status == .ok)
                let properties = try ImageSource(data: Data(buffer: response.body)).properties(at: 0)
                #expect(properties.pixelWidth == 32 && properties.pixelHeight == 21)
                return try #require(response.headers[.eTag])
            }
            tags.insert(fitted)
            #expect(tags.count == 4)
            let cached = try FileManager.default.contentsOfDirectory(atPath: folder.cache.path).filter { $0.hasSuffix(".jpg") }
            #expect(cached.count == 4)
        }
    }

    @Test("an unknown crop is 400 badCrop", arguments: ["faces", "", "ATTENTION"])
    func badCrop(crop: String) async throws {
        let folder = try GalleryFolder()
        try await folder.application().test(.live) { client in
            try await client.execute(uri: "/thumbnails/photo.jpg?crop=\(crop)", method: .get) { response in
                #expect(response.status == .badRequest)
                let object = try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: [String: String]]
                #expect(object?["error"]?["kind"] == "badCrop")
            }
        }
    }

    @Test("/info carries the dominant colour, and the page paints each box with it")
    func dominantColour() async throws {
        let folder = try GalleryFolder()
        let expected = try await ImageSource(url: folder.root.appendingPathComponent("turned.jpg"))
            .thumbnail(maxPixelSize: 100).dominantColor().hex
        try await folder.application().test(.live) { client in
            try await client.execute(uri: "/info/turned.jpg", method: .get) { response in
                #expect(response.status == .ok)
                let object = try #require(try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any])
                #expect(object["dominantColor"] as? String == expected)
            }
            try await client.execute(uri: "/", method: .get) { response in
                let html = String(buffer: response.body)
                #expect(html.contains("style=\"background-color: \(expected)\""), "\(expected)")
                #expect(html.components(separatedBy: "style=\"background-color: #").count - 1 == 5)
            }
        }
    }
}
