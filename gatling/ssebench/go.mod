module streamgate.dev/ssebench

go 1.23

require (
	github.com/coder/websocket v1.8.15
	github.com/golang-jwt/jwt/v5 v5.3.1
)
