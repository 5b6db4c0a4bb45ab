import ExampleSupport

await CommandLineTool.run(GalleryCommand.self)
