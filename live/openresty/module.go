package openresty

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Release is the lua-resty-limit-traffic the target runs: its files must
// be these bytes (Files), those of openresty/lua-resty-limit-traffic at
// commit 26a3fb430b6cccccaebc95da607a32caaa1c86f5, v0.09 (the models'
// source).
const Release = "lua-resty-limit-traffic 0.09"

// Files are the module's files the target runs, under a Lua library
// directory, and the SHA-256 of each at Release.
var Files = []struct{ Path, SHA256 string }{
	{"resty/limit/req.lua", "94f8848dad5a8f2af776bcee2ca0bbde992ea8f731f2c7f18b405c265c4cdbe2"},
	{"resty/limit/count.lua", "80b1cfc27c87fe5e9f413ec1ea7bd373febab5af42ed1cdd53cc77d8a50a6d07"},
}

// LibDirs are where the target looks for the module, in order: a Lua
// library directory of LuaRocks or of a package (/usr/local/share/lua/5.1,
// /usr/share/lua/5.1), and OpenResty's own (/usr/local/openresty/lualib).
var LibDirs = []string{"/usr/local/share/lua/5.1", "/usr/share/lua/5.1", "/usr/local/openresty/lualib"}

// ModuleRequires says how to install the module: no Debian package holds
// it.
const ModuleRequires = Release + "'s lib/resty/limit/req.lua and count.lua under /usr/local/share/lua/5.1 (luarocks install lua-resty-limit-traffic 0.09, opm get openresty/lua-resty-limit-traffic, or the release's lib/ copied there)"

// ErrNotInstalled is FindModule's error when no directory holds the
// module: no Debian, npm or Go package brings it, so scripts/deps cannot
// install it (Target.Unpackaged).
var ErrNotInstalled = errors.New(Release + " is not installed, and no package this machine can install brings it")

// Unpackaged is FindModule's ErrNotInstalled for LibDirs, nil when the
// module is there (or there in other bytes, which the target refuses).
func Unpackaged() error {
	if _, _, err := FindModule(LibDirs); errors.Is(err, ErrNotInstalled) {
		return err
	}
	return nil
}

// FindModule returns the first of dirs that holds the module's Files, read
// and checked against their SHA-256: path to content. A directory holding
// other bytes is an error naming the file (another version), not skipped.
func FindModule(dirs []string) (dir string, files map[string][]byte, err error) {
	for _, d := range dirs {
		files = map[string][]byte{}
		for _, f := range Files {
			b, err := os.ReadFile(filepath.Join(d, f.Path))
			if errors.Is(err, fs.ErrNotExist) {
				files = nil
				break
			}
			if err != nil {
				return "", nil, err
			}
			if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != f.SHA256 {
				return "", nil, fmt.Errorf("%s is not %s's (SHA-256 %x, want %s): install %s", filepath.Join(d, f.Path), Release, sum, f.SHA256, ModuleRequires)
			}
			files[f.Path] = b
		}
		if files != nil {
			return d, files, nil
		}
	}
	return "", nil, fmt.Errorf("%w (looked in %v): install %s", ErrNotInstalled, dirs, ModuleRequires)
}
