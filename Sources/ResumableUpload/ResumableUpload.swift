// Module ResumableUpload: see README.md.
