import SampleUploadExtension
import SquallCLI

Squall.main(extension: SampleUploadExtension.self, urlBase: "https://api.example.com")
