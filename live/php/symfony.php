<?php
// ratebench's driver for Symfony's RateLimiter: a RateLimiterFactory on an
// InMemoryStorage, as Symfony's documentation configures it, its clock
// driven by the replay.
//
// Arguments: the policy (fixed_window, sliding_window or token_bucket),
// the limit L, the interval in whole seconds, and for the token bucket the
// refill amount and its interval in whole seconds. It prints "ready
// VERSIONS" once loaded, then reads one request a line, "KEY T COST" (T
// the request's time in nanoseconds since the epoch), sets microtime to T
// and answers "1" when consume(COST) is accepted, "0" when it is not (or
// when reserve throws for a cost above the limit, which the application
// would answer with an error), "E message" on anything else.

// microtime is the replay's: the policies and the storage call it
// unqualified from their namespaces, where PHP looks for a function of
// the namespace before the global one (the technique of Symfony's own
// ClockMock). Defined before the classes are loaded.
namespace Symfony\Component\RateLimiter\Policy {
    function microtime($asFloat = false) { return \ratebench_microtime($asFloat); }
}

namespace Symfony\Component\RateLimiter\Storage {
    function microtime($asFloat = false) { return \ratebench_microtime($asFloat); }
}

namespace {
    $ratebench_ns = null;

    // ratebench_microtime is PHP's microtime at the replay's time, computed
    // as ext/standard/microtime.c does: tv_sec + tv_usec / 1000000.00.
    function ratebench_microtime($asFloat)
    {
        global $ratebench_ns;
        if ($ratebench_ns === null) {
            return \microtime($asFloat);
        }
        $sec = intdiv($ratebench_ns, 1000000000);
        $usec = intdiv($ratebench_ns % 1000000000, 1000);
        if ($asFloat) {
            return $sec + $usec / 1000000.00;
        }
        return sprintf('%.8F %d', $usec / 1000000.00, $sec);
    }

    // Debian's PHP libraries are under /usr/share/php, on php's default
    // include_path.
    set_include_path(get_include_path().PATH_SEPARATOR.'/usr/share/php');
    require_once 'Symfony/Component/RateLimiter/autoload.php';

    use Symfony\Component\RateLimiter\RateLimiterFactory;
    use Symfony\Component\RateLimiter\Storage\InMemoryStorage;

    $policy = $argv[1];
    $config = ['id' => 'ratebench', 'policy' => $policy, 'limit' => intval($argv[2])];
    if ($policy === 'token_bucket') {
        $config['rate'] = ['interval' => intval($argv[4]).' seconds', 'amount' => intval($argv[5])];
    } else {
        $config['interval'] = intval($argv[3]).' seconds';
    }
    $factory = new RateLimiterFactory($config, new InMemoryStorage());

    echo 'ready PHP ', PHP_VERSION, "\n";
    while (($line = fgets(STDIN)) !== false) {
        $f = explode(' ', rtrim($line, "\r\n"));
        if (count($f) !== 3) {
            echo "E bad line\n";
            continue;
        }
        $ratebench_ns = intval($f[1]);
        try {
            echo $factory->create($f[0])->consume(intval($f[2]))->isAccepted() ? "1\n" : "0\n";
        } catch (\InvalidArgumentException $e) {
            echo "0\n";
        } catch (\Throwable $e) {
            echo 'E ', str_replace("\n", ' ', $e->getMessage()), "\n";
        }
    }
}
