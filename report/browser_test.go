package report

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"ratebench/summary"
)

// measureScript opens every folded section, then writes into the page what
// a reader at this width would see overflow: the page's scroll width
// against the window's, and the elements (outside a box that scrolls on
// its own, and outside the plots' insides) that stick out of the page.
const measureScript = `<script>
document.querySelectorAll('details').forEach(function (d) { d.open = true; });
var vw = document.documentElement.clientWidth, cut = [];
document.querySelectorAll('main *').forEach(function (e) {
  if ((e.closest('.scroll') && !e.classList.contains('scroll')) || (e.closest('svg') && e.tagName !== 'svg')) return;
  var r = e.getBoundingClientRect(), what = e.tagName.toLowerCase() + (e.id ? '#' + e.id : '');
  if (r.width > 0 && (r.right > vw + 1 || r.left < -1)) {
    cut.push(what + ' spans ' + Math.round(r.left) + '..' + Math.round(r.right) + ' px: ' + (e.textContent || '').slice(0, 60));
  } else if (e.tagName !== 'svg' && !/auto|scroll/.test(getComputedStyle(e).overflowX) && e.clientWidth > 0 && e.scrollWidth > e.clientWidth + 1) {
    cut.push(what + ' holds ' + e.scrollWidth + ' px in ' + e.clientWidth + ': ' + (e.textContent || '').slice(0, 60));
  }
});
var out = document.createElement('pre');
out.id = 'measured';
out.textContent = JSON.stringify({scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth, cut: cut.slice(0, 20)});
document.body.appendChild(out);
</script>
`

// browser returns the headless Chromium to render pages with. Without one
// the test fails, unless RATEBENCH_NO_BROWSER=1 says that this machine has
// none on purpose: then the test is skipped, saying so.
func browser(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("RATEBENCH_NO_BROWSER") == "1" {
		t.Skip("RATEBENCH_NO_BROWSER=1 and no Chromium on this machine: the page is not measured in a browser")
	}
	t.Fatal("the page test needs a headless Chromium (apt-get install -y chromium); RATEBENCH_NO_BROWSER=1 runs the tests without it")
	return ""
}

type measured struct {
	ScrollWidth int      `json:"scrollWidth"`
	InnerWidth  int      `json:"innerWidth"`
	Cut         []string `json:"cut"`
}

var measuredRE = regexp.MustCompile(`(?s)<pre id="measured">(.*?)</pre>`)

// measure renders the page at path in Chromium, width px wide, with every
// section unfolded.
func measure(t *testing.T, chromium, path string, width int) measured {
	t.Helper()
	page, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// The report forbids scripts; the copy measured here runs one.
	s := regexp.MustCompile(`<meta http-equiv="Content-Security-Policy"[^>]*>`).ReplaceAllString(string(page), "")
	s = strings.Replace(s, "</body>", measureScript+"</body>", 1)
	tmp := t.TempDir()
	in := filepath.Join(tmp, "measure.html")
	if err := os.WriteFile(in, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
		"--user-data-dir="+filepath.Join(tmp, "profile"), "--window-size="+itoa(int64(width))+",2000", "--dump-dom", "file://"+in)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium at %d px: %v", width, err)
	}
	mm := measuredRE.FindSubmatch(out)
	if mm == nil {
		t.Fatalf("chromium at %d px: the page did not report its measures", width)
	}
	var m measured
	if err := json.Unmarshal([]byte(html.UnescapeString(string(mm[1]))), &m); err != nil {
		t.Fatalf("chromium at %d px: %v", width, err)
	}
	return m
}

// browserPages are the summaries whose pages are measured: the test
// inputs and the committed products, sweep and Cloudflare results.
var browserPages = []string{
	filepath.Join("testdata", "small.summary.json"),
	filepath.Join("testdata", "sweep.summary.json"),
	filepath.Join("testdata", "distributed.summary.json"),
	filepath.Join("..", "results", "products", "summary.json"),
	filepath.Join("..", "results", "mix-sweep", "summary.json"),
	filepath.Join("..", "results", "cloudflare", "summary.json"),
}

// The report reads at 1400 and at 800 px without scrolling sideways and
// without anything cut: wide tables scroll in their own box, plots shrink
// to the page.
func TestPageFitsInBrowser(t *testing.T) {
	chromium := browser(t)
	for _, path := range browserPages {
		s, err := summary.ReadSummaryFile(path)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(filepath.Dir(path)) + "/" + filepath.Base(path)
		dir := write(t, s, Options{NoPNG: true})
		for _, width := range []int{1400, 800} {
			t.Run(fmt.Sprintf("%s/%d", name, width), func(t *testing.T) {
				t.Parallel()
				m := measure(t, chromium, filepath.Join(dir, HTMLFile), width)
				if m.InnerWidth != width {
					t.Errorf("%s at %d px: the window is %d px wide", name, width, m.InnerWidth)
				}
				if m.ScrollWidth > m.InnerWidth {
					t.Errorf("%s at %d px: the page is %d px wide, it scrolls sideways", name, width, m.ScrollWidth)
				}
				for _, c := range m.Cut {
					t.Errorf("%s at %d px: cut: %s", name, width, c)
				}
			})
		}
	}
}
