package nginx

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"ratebench/internal/childproc"
)

// Binary is the program Start runs when given no path.
const Binary = "nginx"

// Limit is the limit_req configuration of the started nginx.
type Limit struct {
	// Rate is the zone's rate as nginx takes it: "Nr/s" or "Nr/m".
	Rate string
	// Burst is limit_req's burst (0: no burst parameter).
	Burst int64
	// Delay is limit_req's delay=N; with NoDelay it is not written.
	Delay int64
	// NoDelay writes nodelay: excess requests within the burst are served
	// at once, so that no delay distorts the timing.
	NoDelay bool
	// ZoneBytes is the size of the shared memory zone (at least 1 MiB).
	ZoneBytes int64
}

// KeyHeader carries the trace's key (as a dense id) to nginx; IDHeader
// the request's index in the trace, logged so that every log line is
// mapped back to its request.
const (
	KeyHeader = "X-Ratebench-Key"
	IDHeader  = "X-Ratebench-Id"
)

// logFormat is the access log's line: the request's index, the status,
// $msec (the wall clock of the event loop's last time update, as seconds
// with ms), the connection's serial number, its request count and
// $connection_time (ngx_current_msec - the connection's start: the
// monotonic ms clock that limit_req reads), and $request_time.
const logFormat = `$http_x_ratebench_id $status $msec $connection $connection_requests $connection_time $request_time`

// ConfFile returns the nginx.conf that StartServer writes into dir for a server
// on host:port (loopback): one process (no master, no workers), one zone keyed
// by KeyHeader, a location that answers 200 at once with an empty file, and an access log of
// logFormat.
func ConfFile(dir, host string, port int, l Limit) string {
	zone := max(l.ZoneBytes, 1<<20)
	lr := "limit_req zone=ratebench"
	if l.Burst > 0 {
		lr += " burst=" + strconv.FormatInt(l.Burst, 10)
	}
	if l.NoDelay {
		lr += " nodelay"
	} else if l.Delay > 0 {
		lr += " delay=" + strconv.FormatInt(l.Delay, 10)
	}
	p := func(name string) string { return strconv.Quote(filepath.Join(dir, name)) }
	var b strings.Builder
	fmt.Fprintf(&b, `# Written by ratebench live nginx.
master_process off;
daemon off;
worker_processes 1;
pid %s;
error_log %s warn;
events {
    worker_connections 4096;
}
http {
    access_log off;
%s    keepalive_requests 100000000;
    keepalive_timeout 600s;
    limit_req_zone $http_x_ratebench_key zone=ratebench:%dk rate=%s;
    limit_req_status 429;
    limit_req_log_level info;
    log_format ratebench '%s';
    server {
        listen %s;
        access_log %s ratebench;
        root %s;
        location = /ok {
            %s;
        }
    }
}
`, p("nginx.pid"), p("error.log"), TempPaths(dir),
		(zone+1023)/1024, l.Rate, logFormat, net.JoinHostPort(host, strconv.Itoa(port)), p("access.log"), p("www"), lr)
	return b.String()
}

// TempPaths returns the http block's temporary paths, under dir/tmp (an
// nginx of the harness's writes nothing outside its directory), one
// directive a line, indented for the http block.
func TempPaths(dir string) string {
	var b strings.Builder
	for _, d := range []string{"client_body", "proxy", "fastcgi", "uwsgi", "scgi"} {
		fmt.Fprintf(&b, "    %s_temp_path %s;\n", d, strconv.Quote(filepath.Join(dir, "tmp", strings.TrimPrefix(d, "client_"))))
	}
	return b.String()
}

// Server is an nginx process that the harness started for itself: one
// process (master_process off, daemon off) bound to 127.0.0.1 on a free
// port, its configuration, logs and temporary files in a fresh temporary
// directory, killed by Stop (and by the kernel if the harness dies).
type Server struct {
	Addr    string
	Dir     string // the temporary directory: nginx.conf, access.log, error.log
	Version string

	proc *childproc.Proc
}

// StartServer writes the configuration for l and runs nginx (binary, or
// Binary from $PATH), waiting until it accepts connections. A free port
// is asked of the kernel; if another process takes it first, the start is
// retried.
func StartServer(ctx context.Context, binary string, l Limit) (*Server, error) {
	return StartConf(ctx, binary, l.conf)
}

// LookPath finds binary, or nginx from $PATH and else /usr/sbin/nginx
// (where Debian installs it, outside an unprivileged user's $PATH).
func LookPath(binary string) (string, error) {
	if binary != "" {
		return exec.LookPath(binary)
	}
	path, err := exec.LookPath(Binary)
	if err == nil {
		return path, nil
	}
	if p, err2 := exec.LookPath("/usr/sbin/nginx"); err2 == nil {
		return p, nil
	}
	return "", fmt.Errorf("nginx not found (%w); install it (apt-get install -y nginx)", err)
}

// nginxVersion returns what nginx -v prints, "nginx/1.22.1"; an error only
// when it was stopped (childproc.Probe: no answer in time, or ctx done).
func nginxVersion(ctx context.Context, path string) (string, error) {
	out, err := childproc.Probe(ctx, path, "-v")
	if childproc.Stopped(err) {
		return "", err
	}
	s := strings.TrimSpace(string(out))
	if _, v, ok := strings.Cut(s, "version: "); ok {
		return v, nil
	}
	return s, nil
}

// startAt starts nginx (binary, or Binary from $PATH) on host:port.
func startAt(ctx context.Context, binary, host string, port int, l Limit) (*Server, error) {
	path, err := LookPath(binary)
	if err != nil {
		return nil, err
	}
	version, err := nginxVersion(ctx, path)
	if err != nil {
		return nil, err
	}
	s, err := startPath(ctx, path, host, port, l.conf)
	if err == nil {
		s.Version = version
	}
	return s, err
}

// conf is l's nginx.conf (ConfFile).
func (l Limit) conf(dir, host string, port int) (string, error) {
	return ConfFile(dir, host, port, l), nil
}

// StartConf starts nginx (binary, or Binary from $PATH) as StartServer
// does, on a free port of 127.0.0.1, with the configuration conf returns
// for the server's directory and address (its temporary paths as
// TempPaths writes them, its pid and error log in the directory); conf
// may write files of its own into the directory first.
func StartConf(ctx context.Context, binary string, conf func(dir, host string, port int) (string, error)) (*Server, error) {
	path, err := LookPath(binary)
	if err != nil {
		return nil, err
	}
	version, err := nginxVersion(ctx, path)
	if err != nil {
		return nil, err
	}
	s, err := childproc.OnFreePort(ctx, func(port int) (*Server, error) {
		return startPath(ctx, path, "127.0.0.1", port, conf)
	})
	if err != nil {
		return nil, err
	}
	s.Version = version
	return s, nil
}

func startPath(ctx context.Context, path, host string, port int, conf func(dir, host string, port int) (string, error)) (*Server, error) {
	dir, err := childproc.NewDir("ratebench-nginx-")
	if err != nil {
		return nil, err
	}
	// The answer is the empty static file www/ok, served in the content
	// phase, after limit_req (a return would answer in the rewrite phase,
	// before it).
	err = os.MkdirAll(filepath.Join(dir, "tmp"), 0o755)
	if err == nil {
		err = os.MkdirAll(filepath.Join(dir, "www"), 0o755)
	}
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, "www", "ok"), nil, 0o644)
	}
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	confPath := filepath.Join(dir, "nginx.conf")
	text, err := conf(dir, host, port)
	if err == nil {
		err = os.WriteFile(confPath, []byte(text), 0o644)
	}
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	// -e: the error log before the configuration is read (else nginx opens
	// its compiled-in /var/log/nginx/error.log).
	proc, err := childproc.Start(dir, path, "-p", dir, "-c", confPath, "-e", filepath.Join(dir, "error.log"))
	if err != nil {
		return nil, err
	}
	s := &Server{Addr: net.JoinHostPort(host, strconv.Itoa(port)), Dir: dir, proc: proc}
	err = proc.WaitReady(ctx, "nginx", "accept a connection on "+s.Addr, func(ctx context.Context) error { return childproc.Accepts(ctx, s.Addr) })
	if err != nil {
		if log := strings.TrimSpace(s.errorLog()); log != "" && ctx.Err() == nil {
			err = fmt.Errorf("%w; its error log: %s", err, log)
		}
		s.Stop()
		return nil, err
	}
	return s, nil
}

// ErrorLog returns what nginx wrote to its error log.
func (s *Server) ErrorLog() string { return s.errorLog() }

// Proc is the nginx process.
func (s *Server) Proc() *childproc.Proc { return s.proc }

func (s *Server) errorLog() string {
	b, _ := os.ReadFile(filepath.Join(s.Dir, "error.log"))
	return string(b)
}

// AccessLog is the path of the access log.
func (s *Server) AccessLog() string { return filepath.Join(s.Dir, "access.log") }

// Pid is the process id of nginx.
func (s *Server) Pid() int { return s.proc.Pid() }

// Exited is closed once the process has exited.
func (s *Server) Exited() <-chan struct{} { return s.proc.Exited() }

// Stop kills nginx, waits for it to exit and removes its directory (read
// the access log before). It is safe to call more than once.
func (s *Server) Stop() error { return s.proc.Stop() }

// startOn starts nginx on listen (loopback only), or a free port.
func startOn(ctx context.Context, binary, listen string, l Limit) (*Server, error) {
	if listen == "" {
		return StartServer(ctx, binary, l)
	}
	ip, p, err := listenAddr(listen)
	if err != nil {
		return nil, err
	}
	return startAt(ctx, binary, ip, p, l)
}

// waitForLog reads nginx's access log once it holds the n requests: nginx
// writes a request's line after its answer, so the last lines may come
// shortly after the last answer (up to 5 s are given).
func waitForLog(srv *Server, n int) ([]Logged, error) {
	deadline := time.Now().Add(5 * time.Second)
	for {
		logged, err := ParseLog(srv.AccessLog())
		if err != nil {
			return nil, err
		}
		if len(logged) >= n || time.Now().After(deadline) {
			if len(logged) != n {
				return nil, fmt.Errorf("nginx logged %d requests of %d", len(logged), n)
			}
			return logged, nil
		}
		time.Sleep(5 * time.Millisecond)
	}
}
