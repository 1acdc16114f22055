module squall.invalid/go-upload

go 1.19
