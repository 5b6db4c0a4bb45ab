// thumbnail: batch thumbnails, in one process, in parallel.
//
//     thumbnail [INPUT ...] [--max-pixel-size N] [--output DIR] [--format jpeg|png|webp|avif]
//               [--quality Q] [--jobs N] [--json]
//
// Exit status: 0 when every input was done, 1 when some failed (the others are still done),
// 2 for bad usage.

import ExampleSupport

await CommandLineTool.run(ThumbnailCommand.self)
