package live

import (
	"context"
	"fmt"
	"io"
	"net/http"

	"ratebench/internal/childproc"
)

// AskHTTP asks a server the harness started (name, running as p) for one
// request: GET url through c, with the key in header (no header when key
// is ""). 200 admits and 429 refuses; any other status is an error
// quoting the answer's start, and a request that fails because the server
// exited says so, with its last output. It returns the answer's headers,
// where a server reports the clock it decided on.
func AskHTTP(ctx context.Context, c *http.Client, url, header, key string, p *childproc.Proc, name string) (bool, http.Header, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return false, nil, err
	}
	if key != "" {
		req.Header.Set(header, key)
	}
	resp, err := c.Do(req)
	if err != nil {
		select {
		case <-p.Exited():
			return false, nil, fmt.Errorf("%s exited (%v): %s", name, p.Err(), p.Output())
		default:
		}
		return false, nil, err
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusOK:
		return true, resp.Header, nil
	case http.StatusTooManyRequests:
		return false, resp.Header, nil
	}
	if len(body) > 200 {
		body = body[:200]
	}
	return false, nil, fmt.Errorf("%s answered %s, neither 200 nor 429: %q", name, resp.Status, body)
}
