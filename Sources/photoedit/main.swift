import PhotoEditCLI

#if canImport(Glibc)
  import Glibc
#endif

exit(PhotoEditCLI.run(arguments: PhotoEditCLI.processArguments()))
