// Module UploadStore: see README.md.
