import Foundation
import Hummingbird
import MagickIO
import NIOCore

/// What an upload may be.
struct UploadLimits: Sendable {
    /// The most bytes a body may have.
    var maxBytes = 64 << 20
    /// How uploads are opened and decoded: the pixel count is checked as soon as the header is in;
    /// a decode stops after 10 s.
    var decodingOptions = DecodingOptions(maxPixelCount: 100_000_000, timeLimit: .seconds(10))
}

extension Gallery {
    /// `POST /thumbnail?size=N`: a `Content-Length` over `maxBytes` is refused at once, before the
    /// body is asked for (`Expect: 100-continue` is answered only after that check). The body is
    /// fed to an ``IncrementalImageSource`` chunk by chunk as it arrives. Content that is no image
    /// MagickIO may decode is refused once its first bytes are in, an image over the limits once
    /// its header is in, and a body over `maxBytes` once it gets there: each without reading the
    /// rest (the connection is closed after the answer). A client that leaves ends the request,
    /// while its body is read or its thumbnail made.
    func upload(_ request: Request, _ context: GalleryContext) async throws -> Response {
        let size = try size(of: request)
        // A body declared over the limit is refused before it is asked for (and not drained).
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > uploads.maxBytes {
            throw refusal(Self.tooLarge(uploads.maxBytes), request: request, received: 0)
        }
        await context.continueIfExpected(request)
        let incremental = IncrementalImageSource(options: uploads.decodingOptions)
        var received = 0
        var headerChecked = false
        do {
            for try await buffer in request.body {
                received += buffer.readableBytes
                guard received <= uploads.maxBytes else {
                    throw Self.tooLarge(uploads.maxBytes)
                }
                incremental.append(Data(buffer.readableBytesView))
                if !headerChecked {
                    headerChecked = try incremental.checkHeader()
                }
            }
        } catch let error as MagickIOError {
            throw refusal(error, request: request, received: received)
        } catch let error as GalleryError {
            throw error
        } catch {
            // The body stopped short of its length (the client went away, or sent garbage).
            throw GalleryError(.badRequest, kind: "badBody", "the body could not be read: \(error)")
        }
        incremental.append(Data(), isFinal: true)
        do {
            if !headerChecked { _ = try incremental.checkHeader() }
            guard let source = incremental.source else {
                throw MagickIOError(.corruptImage, "the body is not a complete image")
            }
            let image = try await context.cancellingOnDisconnect {
                try await thumbnails.thumbnail(of: source, size: size)
            }
            let data = try await image.encoded(as: .jpeg(quality: 85))
            return Response(status: .ok, headers: [.contentType: "image/jpeg"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
        } catch let error as MagickIOError {
            throw GalleryError(error)
        }
    }

    private static func tooLarge(_ maxBytes: Int) -> MagickIOError {
        MagickIOError(.limitExceeded, "maxBytes: the body is larger than \(maxBytes) bytes")
    }

    /// The error response for an upload refused before its end; when more than a little of the
    /// body is left unread, the connection is closed after the answer rather than drained.
    private func refusal(_ error: MagickIOError, request: Request, received: Int) -> GalleryError {
        var refusal = GalleryError(error)
        let length = request.headers[.contentLength].flatMap { Int($0) }
        if length.map({ $0 - received > 64 << 10 }) ?? true {
            refusal.closesConnection = true
        }
        return refusal
    }
}
