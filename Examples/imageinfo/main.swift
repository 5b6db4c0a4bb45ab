// imageinfo: image properties read from the header, without decoding pixels.
//
//     imageinfo FILE ... [--json]
//
// Exit status: 0 when every file was read, 1 when some failed, 2 for bad usage.

import ExampleSupport

await CommandLineTool.run(ImageInfoCommand.self)
