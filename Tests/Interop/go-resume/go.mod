module squall/go-resume

go 1.19
