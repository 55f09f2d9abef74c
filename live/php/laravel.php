<?php
// ratebench's driver for Laravel's throttle middleware: the real
// ThrottleRequests on Illuminate\Cache\RateLimiter with the array cache
// store, its clock driven by the replay.
//
// Arguments: maxAttempts L and decayMinutes M, as a route's throttle:L,M
// gives them (strings). It prints "ready VERSIONS" once loaded, then reads
// one request a line, "KEY T" (T the request's time in nanoseconds since
// the epoch), sets Carbon's now to T and answers "1" when the middleware
// passes the request on, "0" when it throws ThrottleRequestsException
// (429), "E message" on anything else.

// Debian's PHP libraries are under /usr/share/php, on php's default
// include_path.
set_include_path(get_include_path().PATH_SEPARATOR.'/usr/share/php');
require_once 'Illuminate/autoload.php';

use Illuminate\Cache\ArrayStore;
use Illuminate\Cache\RateLimiter;
use Illuminate\Cache\Repository;
use Illuminate\Foundation\Application;
use Illuminate\Http\Exceptions\ThrottleRequestsException;
use Illuminate\Http\Request;
use Illuminate\Http\Response;
use Illuminate\Routing\Middleware\ThrottleRequests;
use Illuminate\Support\Carbon;

// The request's signature is the replay's key (the middleware's own is
// sha1 of the route's domain and the client's address).
class RatebenchThrottle extends ThrottleRequests
{
    protected function resolveRequestSignature($request)
    {
        return $request->headers->get('X-Ratebench-Key');
    }
}

$maxAttempts = $argv[1];
$decayMinutes = $argv[2];
$throttle = new RatebenchThrottle(new RateLimiter(new Repository(new ArrayStore())));
$next = function ($request) {
    return new Response('ok');
};

echo 'ready laravel/framework ', Application::VERSION, ', PHP ', PHP_VERSION, "\n";
while (($line = fgets(STDIN)) !== false) {
    $f = explode(' ', rtrim($line, "\r\n"));
    if (count($f) !== 2) {
        echo "E bad line\n";
        continue;
    }
    $ns = intval($f[1]);
    // Carbon::now(), which the store's and the limiter's currentTime()
    // read, at the request's microsecond.
    Carbon::setTestNow(Carbon::createFromFormat('U.u', sprintf('%d.%06d', intdiv($ns, 1000000000), intdiv($ns % 1000000000, 1000)), 'UTC'));
    $request = Request::create('/');
    $request->headers->set('X-Ratebench-Key', $f[0]);
    try {
        $throttle->handle($request, $next, $maxAttempts, $decayMinutes);
        echo "1\n";
    } catch (ThrottleRequestsException $e) {
        echo "0\n";
    } catch (\Throwable $e) {
        echo 'E ', str_replace("\n", ' ', get_class($e).': '.$e->getMessage()), "\n";
    }
}
