module ratebench

go 1.26
