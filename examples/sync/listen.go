package main

import "net"

// listen opens a loopback port for the churning fake.
func listen() (net.Listener, error) { return net.Listen("tcp", "127.0.0.1:0") }
