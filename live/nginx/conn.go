package nginx

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
)

// conn is one keep-alive HTTP/1.1 connection.
type conn struct {
	mu  sync.Mutex
	nc  net.Conn
	br  *bufio.Reader
	buf []byte
}

func dial(ctx context.Context, addr string) (*conn, error) {
	var d net.Dialer
	nc, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	if tc, ok := nc.(*net.TCPConn); ok {
		tc.SetNoDelay(true)
	}
	return &conn{nc: nc, br: bufio.NewReaderSize(nc, 4096)}, nil
}

func (c *conn) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.nc.Close()
}

// do sends request id for key and reads the answer's status.
func (c *conn) do(id int, key int32) (int, error) {
	c.buf = c.buf[:0]
	c.buf = append(c.buf, "GET /ok HTTP/1.1\r\nHost: ratebench\r\n"+KeyHeader+": k"...)
	c.buf = strconv.AppendInt(c.buf, int64(key), 10)
	c.buf = append(c.buf, "\r\n"+IDHeader+": "...)
	c.buf = strconv.AppendInt(c.buf, int64(id), 10)
	c.buf = append(c.buf, "\r\n\r\n"...)
	if _, err := c.nc.Write(c.buf); err != nil {
		return 0, err
	}
	resp, err := http.ReadResponse(c.br, nil)
	if err != nil {
		return 0, err
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err != nil {
		return 0, err
	}
	if resp.Close {
		return 0, errors.New("nginx closed the connection")
	}
	return resp.StatusCode, nil
}

// dialAll opens n connections to addr; on an error, those opened are
// returned with it (to be closed).
func dialAll(ctx context.Context, addr string, n int) ([]*conn, error) {
	conns := make([]*conn, 0, n)
	for range n {
		c, err := dial(ctx, addr)
		if err != nil {
			return conns, err
		}
		conns = append(conns, c)
	}
	return conns, nil
}

// closeAll closes the connections (again, harmlessly).
func closeAll(conns []*conn) {
	for _, c := range conns {
		c.close()
	}
}
