module streamgate.dev/ssebench

go 1.22
