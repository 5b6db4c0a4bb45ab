#if Remote
import AsyncHTTPClient
import Foundation
import MagickIO
import NIOCore
import NIOHTTP1
import NIOSOCKS

/// A source's validators, sent back as `If-None-Match` and `If-Modified-Since`.
struct Validators: Sendable, Hashable, Codable {
    var etag: String?
    var lastModified: String?

    var isEmpty: Bool { etag == nil && lastModified == nil }
}

/// What one fetch brought: a new body, or word that the cached one still holds.
enum FetchOutcome: Sendable {
    case fetched(Fetched)
    case notModified(freshUntil: Date?)
}

/// A body that arrived whole and opened as an image.
struct Fetched: Sendable {
    var source: ImageSource
    /// The bytes, kept only when a disk cache will store them.
    var bytes: Data?
    var byteCount: Int
    var validators: Validators
    var freshUntil: Date?
}

/// One fetch of a source: the redirects followed one hop at a time (each hop's URL checked against
/// the allowed sources, each connection by the address gate), the body streamed into an
/// `IncrementalImageSource` and refused as soon as its header or its length says so.
struct Fetcher: Sendable {
    let client: HTTPClient
    let gate: AddressGate
    let configuration: RemoteImageLoader.Configuration
    let keepsBytes: Bool

    func fetch(_ url: URL, revalidating validators: Validators?) async throws(MagickIOError) -> FetchOutcome {
        let deadline = NIODeadline.now() + TimeAmount(configuration.requestTimeout)
        var current = url
        var redirects = 0
        while true {
            try checkAllowed(current)
            let port = current.port ?? (current.scheme?.lowercased() == "https" ? 443 : 80)
            if let reason = await AddressGate.precheck(Self.connectionHost(current), port: port, policy: AddressPolicy(configuration)) {
                throw MagickIOError(.sourceNotAllowed, "the address guard refuses \(current.host ?? ""): \(reason)",
                                    source: .init(url: current.absoluteString))
            }
            let hopStart = ContinuousClock.now
            var request = HTTPClientRequest(url: current.absoluteString)
            request.headers.add(name: "Accept", value: "image/*")
            request.headers.add(name: "User-Agent", value: "MagickIORemote")
            if let etag = validators?.etag { request.headers.add(name: "If-None-Match", value: etag) }
            if let date = validators?.lastModified { request.headers.add(name: "If-Modified-Since", value: date) }
            let hopDeadline = min(deadline, .now() + TimeAmount(configuration.downloadTimeout))
            let response: HTTPClientResponse
            do {
                response = try await client.execute(request, deadline: hopDeadline)
            } catch {
                throw failure(error, url: current, since: hopStart)
            }
            switch response.status.code {
            case 301, 302, 303, 307, 308:
                _ = try? await response.body.collect(upTo: 64 << 10)
                guard redirects < configuration.maxRedirects else {
                    throw MagickIOError(.sourceUnavailable, "more than \(configuration.maxRedirects) redirects (maxRedirects)",
                                        source: .init(url: current.absoluteString, status: Int(response.status.code)))
                }
                guard let location = response.headers.first(name: "location"),
                      let next = URL(string: location, relativeTo: current)?.absoluteURL else {
                    throw MagickIOError(.sourceUnavailable, "a redirect without a usable Location",
                                        source: .init(url: current.absoluteString, status: Int(response.status.code)))
                }
                redirects += 1
                current = next
            case 304 where validators != nil:
                return .notModified(freshUntil: Self.freshUntil(response.headers))
            case 200:
                return .fetched(try await body(of: response, url: current, since: hopStart, deadline: hopDeadline))
            default:
                _ = try? await response.body.collect(upTo: 64 << 10)
                throw MagickIOError(.sourceUnavailable, "the source answered \(response.status.code) \(response.status.reasonPhrase)",
                                    source: .init(url: current.absoluteString, status: Int(response.status.code)))
            }
        }
    }

    /// Refuses a URL that is not http(s) or outside the allowed sources, before any connection.
    private func checkAllowed(_ url: URL) throws(MagickIOError) {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host?.isEmpty == false else {
            throw MagickIOError(.sourceNotAllowed, "only http and https URLs with a host are fetched", source: .init(url: url.absoluteString))
        }
        let text = url.absoluteString
        guard configuration.allowedSources.isEmpty || configuration.allowedSources.contains(where: { text.hasPrefix($0) }) else {
            throw MagickIOError(.sourceNotAllowed, "\(text) is not under any of the allowed sources", source: .init(url: text))
        }
    }

    /// The body, fed to an incremental source as it arrives; ends the download as soon as the
    /// length, the header or the bytes so far are over the limits.
    private func body(of response: HTTPClientResponse, url: URL, since start: ContinuousClock.Instant,
                      deadline: NIODeadline) async throws(MagickIOError) -> Fetched {
        let maxBytes = configuration.maxSourceBytes
        if let length = response.headers.first(name: "content-length").flatMap({ Int($0) }), length > maxBytes {
            throw Self.tooLarge(length, maxBytes, "Content-Length")
        }
        let incremental = IncrementalImageSource(options: configuration.decoding)
        let read: (bytes: Data, received: Int, headerChecked: Bool)
        do {
            // AsyncHTTPClient's deadline ends at the response head; the body races the hop's own.
            read = try await withThrowingTaskGroup(of: (bytes: Data, received: Int, headerChecked: Bool)?.self) { group in
                group.addTask {
                    var bytes = Data()
                    var received = 0
                    var headerChecked = false
                    for try await buffer in response.body {
                        received += buffer.readableBytes
                        guard received <= maxBytes else { throw Self.tooLarge(received, maxBytes, "the body") }
                        let chunk = Data(buffer.readableBytesView)
                        if keepsBytes { bytes.append(chunk) }
                        incremental.append(chunk)
                        if !headerChecked {
                            headerChecked = try incremental.checkHeader()
                        }
                    }
                    return (bytes, received, headerChecked)
                }
                group.addTask {
                    let now = NIODeadline.now()
                    let nanoseconds = deadline > now ? deadline.uptimeNanoseconds - now.uptimeNanoseconds : 0
                    try await Task.sleep(for: .nanoseconds(Int64(clamping: nanoseconds)))
                    return nil
                }
                defer { group.cancelAll() }
                guard let first = try await group.next(), let read = first else { throw HTTPClientError.deadlineExceeded }
                return read
            }
        } catch let error as MagickIOError {
            throw error
        } catch {
            throw failure(error, url: url, since: start)
        }
        let (bytes, received, headerChecked) = read
        incremental.append(Data(), isFinal: true)
        if !headerChecked { _ = try incremental.checkHeader() }
        guard let source = incremental.source else {
            throw MagickIOError(.corruptImage, "the body is not a complete image")
        }
        let validators = Validators(etag: response.headers.first(name: "etag"), lastModified: response.headers.first(name: "last-modified"))
        return Fetched(source: source, bytes: keepsBytes ? bytes : nil, byteCount: received, validators: validators, freshUntil: Self.freshUntil(response.headers))
    }

    private static func tooLarge(_ bytes: Int, _ limit: Int, _ what: String) -> MagickIOError {
        MagickIOError(.limitExceeded, "maxSourceBytes: \(what) is \(bytes) bytes, more than \(limit)",
                      limit: .init(name: "maxSourceBytes", requested: bytes, limit: limit))
    }

    /// An error of AsyncHTTPClient's (or the task's) as a `MagickIOError`: a connection the gate
    /// refused is `MagickIOError/Kind/sourceNotAllowed`, cancellation `MagickIOError/Kind/cancelled`,
    /// anything else `MagickIOError/Kind/sourceUnavailable`.
    private func failure(_ error: any Error, url: URL, since start: ContinuousClock.Instant) -> MagickIOError {
        let text = url.absoluteString
        if let refused = error as? SOCKSError.ConnectionFailed, refused.reply == .notAllowed {
            let reason = gate.refusal(host: Self.connectionHost(url), port: url.port ?? (url.scheme == "https" ? 443 : 80), since: start)
            return MagickIOError(.sourceNotAllowed, "the address guard refused the connection to \(url.host ?? text): \(reason ?? "a refused address")",
                                 source: .init(url: text))
        }
        if error is CancellationError || Task.isCancelled {
            return MagickIOError(.cancelled, "the download of \(text) was cancelled")
        }
        if let error = error as? HTTPClientError,
           ([.deadlineExceeded, .connectTimeout, .readTimeout, .socksHandshakeTimeout, .writeTimeout] as [HTTPClientError]).contains(error) {
            return MagickIOError(.sourceUnavailable, "\(text) timed out (\(error))", source: .init(url: text, timedOut: true))
        }
        return MagickIOError(.sourceUnavailable, "\(text) failed: \(error)", source: .init(url: text))
    }

    /// The host as AsyncHTTPClient hands it to the gate: an IPv6 literal without its brackets.
    private static func connectionHost(_ url: URL) -> String {
        let host = url.host ?? ""
        return host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
    }

    /// When a response stops being fresh, from `Cache-Control: max-age` (nil: revalidate each time).
    static func freshUntil(_ headers: HTTPHeaders) -> Date? {
        let directives = headers[canonicalForm: "cache-control"].map { $0.lowercased().trimmingCharacters(in: .whitespaces) }
        guard !directives.contains(where: { $0 == "no-cache" || $0 == "no-store" }),
              let maxAge = directives.lazy.compactMap({ $0.hasPrefix("max-age=") ? Int($0.dropFirst(8)) : nil }).first else {
            return nil
        }
        return Date(timeIntervalSinceNow: TimeInterval(maxAge))
    }
}
#endif
