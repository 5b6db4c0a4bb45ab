import ExamplesShared
import Foundation
import Hummingbird
import MagickIO

/// An error the gallery answers with: a status and the JSON body
/// `{"error": {"kind": ..., "message": ...}}`.
struct GalleryError: Error, HTTPResponseError {
    var status: HTTPResponse.Status
    var kind: String
    var message: String
    /// Whether the connection closes after the answer, leaving the rest of the body unread
    /// (Hummingbird would otherwise read it to its end before the next request).
    var closesConnection = false

    init(_ status: HTTPResponse.Status, kind: String, _ message: String) {
        self.status = status
        self.kind = kind
        self.message = message
    }

    /// A MagickIO error as HTTP: bad input is the client's (4xx); only a failure of the server's
    /// own (encoding, I/O) is a 500.
    init(_ error: MagickIOError) {
        let status: HTTPResponse.Status = switch error.kind {
        case .limitExceeded: .contentTooLarge
        case .unsupportedFormat, .formatNotAllowed: .unsupportedMediaType
        case .corruptImage, .emptyData, .frameOutOfRange: .unprocessableContent
        case .fileNotFound: .notFound
        // A decode that ran past its time limit is the server's timeout (503); any other
        // cancellation is a client that went away (499, as nginx logs it).
        case .cancelled: error.limit?.name == "timeLimit" ? .serviceUnavailable : .init(code: 499, reasonPhrase: "Client Closed Request")
        case .encodingFailed, .io: .internalServerError
        // A remote source (MagickIORemote): refused by the allowed sources or the address guard,
        // or failed upstream: 504 when it timed out, 502 otherwise.
        case .sourceNotAllowed: .forbidden
        case .sourceUnavailable: error.source?.timedOut == true ? .gatewayTimeout : .badGateway
        }
        self.init(status, kind: error.kind.rawValue, error.message)
    }

    static func notFound(_ path: String) -> GalleryError {
        GalleryError(.notFound, kind: "notFound", "no image at \(path)")
    }

    static func badSize(_ text: String) -> GalleryError {
        GalleryError(.badRequest, kind: "badSize", "size must be a whole number in \(Gallery.sizes) (got \(text))")
    }

    static func badCrop(_ text: String) -> GalleryError {
        let names = SquareCrop.allCases.map(\.rawValue).joined(separator: ", ")
        return GalleryError(.badRequest, kind: "badCrop", "crop must be one of \(names) (got \(text))")
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        let body = ByteBuffer(string: JSONLine.line([("error", .object([("kind", .string(kind)), ("message", .string(message))]))]) + "\n")
        var headers: HTTPFields = [.contentType: "application/json; charset=utf-8"]
        guard closesConnection, let channel = (context as? GalleryContext)?.channel else {
            return Response(status: status, headers: headers, body: .init(byteBuffer: body))
        }
        headers[.connection] = "close"
        return Response(status: status, headers: headers, body: ResponseBody(contentLength: body.readableBytes) { writer in
            try await writer.write(body)
            try await writer.finish(nil)
            // Input closed, Hummingbird's wait for the next request ends and it closes the rest.
            channel.close(mode: .input, promise: nil)
        })
    }
}
