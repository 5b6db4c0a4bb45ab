import ExamplesShared

await CommandLineTool.run(GalleryCommand.self)
