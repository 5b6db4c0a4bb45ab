import Hummingbird
import MagickIO
import NIOCore

/// Turns what the routes throw into the gallery's JSON errors: a ``MagickIOError`` by its kind,
/// a cancellation (the client left) as 499.
struct ErrorMiddleware: RouterMiddleware {
    typealias Context = GalleryContext

    func handle(_ request: Request, context: GalleryContext,
                next: (Request, GalleryContext) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as MagickIOError {
            return try GalleryError(error).response(from: request, context: context)
        } catch is CancellationError {
            return try GalleryError(MagickIOError(.cancelled, "the client went away")).response(from: request, context: context)
        }
    }
}
