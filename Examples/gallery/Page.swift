import Foundation
import MagickIO

/// The gallery's HTML page: one lazy `<img>` per image, sized in advance and painted with its
/// dominant colour, then its ThumbHash (decoded by the page's script), until the thumbnail arrives.
enum Page {
    struct Tile {
        var path: String
        var width: Int
        var height: Int
        var placeholder: Placeholder?
    }

    static func html(title: String, tiles: [Tile]) -> String {
        let figures = tiles.map { tile in
            let path = escape(encode(tile.path))
            // The dominant colour paints the box at once (plain CSS); the ThumbHash's picture
            // replaces it as soon as the script has decoded it.
            let hash = tile.placeholder.map {
                " style=\"background-color: \($0.dominantColor.hex)\" data-thumbhash=\"\($0.thumbHash.base64)\""
            } ?? ""
            return """
                <figure><a href="/info/\(path)"><img loading="lazy" src="/thumbnails/\(path)?size=\(Gallery.defaultSize)" \
                width="\(tile.width)" height="\(tile.height)" alt="\(escape(tile.path))"\(hash)></a>\
                <figcaption>\(escape(tile.path))</figcaption></figure>
                """
        }
        return """
            <!doctype html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(escape(title))</title>
            <style>
            body { font: 14px system-ui, sans-serif; margin: 24px; background: #f4f4f2; color: #222; }
            main { display: flex; flex-wrap: wrap; gap: 16px; align-items: flex-end; }
            figure { margin: 0; }
            img { display: block; background-size: 100% 100%; border-radius: 4px; }
            figcaption { margin-top: 6px; color: #555; }
            </style>
            </head>
            <body>
            <h1>\(escape(title))</h1>
            <main>
            \(figures.joined(separator: "\n"))
            </main>
            <script>
            \(script)
            </script>
            </body>
            </html>

            """
    }

    /// ThumbHash's reference decoder (Evan Wallace's algorithm), then each placeholder drawn as
    /// its image's background until the image itself has loaded.
    static let script = """
        function thumbHashToRGBA(hash) {
          const { PI, min, max, cos, round } = Math;
          const header24 = hash[0] | (hash[1] << 8) | (hash[2] << 16), header16 = hash[3] | (hash[4] << 8);
          const lDC = (header24 & 63) / 63, pDC = ((header24 >> 6) & 63) / 31.5 - 1, qDC = ((header24 >> 12) & 63) / 31.5 - 1;
          const lScale = ((header24 >> 18) & 31) / 31, hasAlpha = header24 >> 23;
          const pScale = ((header16 >> 3) & 63) / 63, qScale = ((header16 >> 9) & 63) / 63, isLandscape = header16 >> 15;
          const lx = max(3, isLandscape ? (hasAlpha ? 5 : 7) : header16 & 7);
          const ly = max(3, isLandscape ? header16 & 7 : (hasAlpha ? 5 : 7));
          const aDC = hasAlpha ? (hash[5] & 15) / 15 : 1, aScale = (hash[5] >> 4) / 15;
          const start = hasAlpha ? 6 : 5;
          let index = 0;
          const channel = (nx, ny, scale) => {
            const ac = [];
            for (let cy = 0; cy < ny; cy++)
              for (let cx = cy ? 0 : 1; cx * ny < nx * (ny - cy); cx++, index++)
                ac.push((((hash[start + (index >> 1)] >> ((index & 1) << 2)) & 15) / 7.5 - 1) * scale);
            return ac;
          };
          const lAC = channel(lx, ly, lScale), pAC = channel(3, 3, pScale * 1.25), qAC = channel(3, 3, qScale * 1.25);
          const aAC = hasAlpha && channel(5, 5, aScale);
          const shapeX = isLandscape ? (hasAlpha ? 5 : 7) : header16 & 7, shapeY = isLandscape ? header16 & 7 : (hasAlpha ? 5 : 7);
          const ratio = shapeX / shapeY;
          const w = round(ratio > 1 ? 32 : 32 * ratio), h = round(ratio > 1 ? 32 / ratio : 32);
          const rgba = new Uint8ClampedArray(w * h * 4), fx = [], fy = [];
          for (let y = 0, i = 0; y < h; y++) {
            for (let x = 0; x < w; x++, i += 4) {
              let l = lDC, p = pDC, q = qDC, a = aDC;
              for (let cx = 0, n = max(lx, hasAlpha ? 5 : 3); cx < n; cx++) fx[cx] = cos(PI / w * (x + 0.5) * cx);
              for (let cy = 0, n = max(ly, hasAlpha ? 5 : 3); cy < n; cy++) fy[cy] = cos(PI / h * (y + 0.5) * cy);
              for (let cy = 0, j = 0; cy < ly; cy++)
                for (let cx = cy ? 0 : 1, fy2 = fy[cy] * 2; cx * ly < lx * (ly - cy); cx++, j++) l += lAC[j] * fx[cx] * fy2;
              for (let cy = 0, j = 0; cy < 3; cy++)
                for (let cx = cy ? 0 : 1, fy2 = fy[cy] * 2; cx < 3 - cy; cx++, j++) {
                  const f = fx[cx] * fy2;
                  p += pAC[j] * f;
                  q += qAC[j] * f;
                }
              if (hasAlpha)
                for (let cy = 0, j = 0; cy < 5; cy++)
                  for (let cx = cy ? 0 : 1, fy2 = fy[cy] * 2; cx < 5 - cy; cx++, j++) a += aAC[j] * fx[cx] * fy2;
              const b = l - 2 / 3 * p, r = (3 * l - b + q) / 2, g = r - q;
              rgba[i] = 255 * r; rgba[i + 1] = 255 * g; rgba[i + 2] = 255 * b; rgba[i + 3] = 255 * a;
            }
          }
          return { w, h, rgba };
        }
        function thumbHashToDataURL(hash) {
          const { w, h, rgba } = thumbHashToRGBA(hash);
          const canvas = document.createElement("canvas");
          canvas.width = w;
          canvas.height = h;
          const context = canvas.getContext("2d");
          context.putImageData(new ImageData(rgba, w, h), 0, 0);
          return canvas.toDataURL();
        }
        for (const img of document.querySelectorAll("img[data-thumbhash]")) {
          if (img.complete && img.naturalWidth) continue;
          const hash = Uint8Array.from(atob(img.dataset.thumbhash), c => c.charCodeAt(0));
          img.style.backgroundImage = `url(${thumbHashToDataURL(hash)})`;
          img.addEventListener("load", () => { img.style.backgroundImage = "none"; });
        }
        """

    /// Percent-encodes each path component (the `/` between them kept).
    static func encode(_ path: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "?#%;")
        return path.split(separator: "/").map { $0.addingPercentEncoding(withAllowedCharacters: allowed) ?? String($0) }
            .joined(separator: "/")
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
