// Command mercure is the Mercure hub (Caddy with the Mercure module, as the hub's own
// caddy/mercure command builds it), built from this module so that the many-topics
// benchmark can run the Go hub it is compared with on the same machine
// (gatling/bin/mercure-fanout).
package main

import (
	caddycmd "github.com/caddyserver/caddy/v2/cmd"
	_ "github.com/caddyserver/caddy/v2/modules/standard"
	_ "github.com/dunglas/mercure/caddy"
)

func main() {
	caddycmd.Main()
}
