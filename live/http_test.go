package live

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"ratebench/internal/childproc"
)

func TestAskHTTP(t *testing.T) {
	dir, err := childproc.NewDir("ratebench-askhttp-")
	if err != nil {
		t.Fatal(err)
	}
	p, err := childproc.Start(dir, "/bin/sh", "-c", "echo gone for good; exit 7")
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Clock", "42")
		switch r.Header.Get("X-Key") {
		case "ok":
		case "no":
			w.WriteHeader(http.StatusTooManyRequests)
		default:
			w.WriteHeader(http.StatusInternalServerError)
			w.Write([]byte("broken"))
		}
	}))
	ctx := context.Background()
	for key, want := range map[string]bool{"ok": true, "no": false} {
		a, h, err := AskHTTP(ctx, srv.Client(), srv.URL, "X-Key", key, p, "server")
		if err != nil || a != want || h.Get("X-Clock") != "42" {
			t.Errorf("key %s: %v, %v, %v", key, a, h, err)
		}
	}
	if _, _, err := AskHTTP(ctx, srv.Client(), srv.URL, "X-Key", "", p, "server"); err == nil || !strings.Contains(err.Error(), "neither 200 nor 429") || !strings.Contains(err.Error(), "broken") {
		t.Errorf("a 500: %v", err)
	}
	url := srv.URL
	srv.Close()
	<-p.Exited()
	if _, _, err := AskHTTP(ctx, http.DefaultClient, url, "X-Key", "ok", p, "server"); err == nil || !strings.Contains(err.Error(), "server exited") || !strings.Contains(err.Error(), "gone for good") {
		t.Errorf("a server that exited: %v", err)
	}
}
