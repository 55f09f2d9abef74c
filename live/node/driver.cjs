'use strict'
// ratebench's driver of express-rate-limit: it runs the real middleware,
// rateLimit({ windowMs, limit }), on a request and response of its own for
// each line of its input, and answers whether the middleware passed the
// request on (next()) or refused it (status 429).
//
//   node driver.cjs PREFIX memory WINDOW_MS LIMIT
//   node driver.cjs PREFIX redis WINDOW_MS LIMIT HOST:PORT
//
// PREFIX is the folder the npm packages are installed in (npm ci --prefix
// PREFIX). It prints "ready" once the limiter can take requests (with the
// Redis store, "ready SHA1": the SHA1 of the increment script the store
// loaded), then reads
// lines "KEY T" (T the request's trace time in ns, in order) and answers
// each with one line:
//
//   memory: "A" or "R". Date and the store's timers are fake
//     (@sinonjs/fake-timers), driven by the trace: before each request the
//     clock moves on to floor(T / 1 ms), running the store's interval
//     (its sweep of idle clients) at each instant it falls due on the way.
//     The limiter is made at the first request's instant.
//   redis: "A MS HOW" or "R MS HOW": the clock is the Redis server's,
//     which cannot be driven; MS is the millisecond the store's script read
//     it at (its PTTL, or its SET ... PX), HOW "=" when exact: PEXPIRETIME
//     of the key, read on the same connection right after the script,
//     less the time to expire the script returned (when - (when - now),
//     or (now + windowMs) - windowMs); "~" when the key was gone by then
//     (it expired in between), and MS is Redis TIME's millisecond read
//     just before the script.
//
// An error is answered "E message" and ends the driver.
const path = require('node:path')
const readline = require('node:readline')
const { createRequire } = require('node:module')

const [prefix, storeName, windowMsArg, limitArg, redisAddr] = process.argv.slice(2)
const load = createRequire(path.join(path.resolve(prefix), 'package.json'))
const { rateLimit } = load('express-rate-limit')

const windowMs = Number(windowMsArg)
const limit = Number(limitArg)

function fail(error) {
	process.stdout.write(`E ${String(error && error.stack ? error.stack : error).replace(/\s+/g, ' ')}\n`)
	process.exit(1)
}

// The middleware's request and response: what it reads and writes of them.
function exchange(key) {
	const request = { rateKey: key, ip: '127.0.0.1', method: 'GET', url: '/', originalUrl: '/', headers: {} }
	const headers = {}
	const response = {
		statusCode: 200,
		headersSent: false,
		writableEnded: false,
		setHeader(name, value) {
			headers[name.toLowerCase()] = value
			return this
		},
		getHeader(name) {
			return headers[name.toLowerCase()]
		},
		append(name, value) {
			headers[name.toLowerCase()] = value
			return this
		},
		status(code) {
			this.statusCode = code
			return this
		},
		send(body) {
			this.body = body
			this.writableEnded = true
			return this
		},
		once() {
			return this
		},
		on() {
			return this
		},
	}
	return { request, response }
}

// decide runs the middleware once for key: true when it passed the
// request on, false when it refused it.
async function decide(limiter, key) {
	const { request, response } = exchange(key)
	let passed = false
	let error
	await limiter(request, response, (err) => {
		passed = true
		error = err
	})
	if (error) throw error
	if (passed && response.statusCode === 200) return true
	if (!passed && response.statusCode === 429) return false
	throw new Error(`the middleware neither passed the request on nor refused it (next ${passed}, status ${response.statusCode})`)
}

const options = (store) => ({
	windowMs,
	limit,
	keyGenerator: (request) => request.rateKey,
	...(store ? { store } : {}),
})

// floorMs is floor(t / 1 ms) of a time in ns given as a decimal string.
function floorMs(t) {
	const ns = BigInt(t)
	let q = ns / 1000000n
	if (ns < 0n && q * 1000000n !== ns) q -= 1n
	return Number(q)
}

async function memoryDriver() {
	const FakeTimers = load('@sinonjs/fake-timers')
	let clock
	let limiter
	const answer = async (key, t) => {
		const now = floorMs(t)
		if (!clock) {
			// The store's own clock and timers: Date (Date.now, new Date)
			// and setInterval/clearInterval, its sweep. Nothing else is
			// faked: the driver's input and output run as they do.
			clock = FakeTimers.install({ now, toFake: ['Date', 'setInterval', 'clearInterval'] })
			limiter = rateLimit(options())
		} else if (now > clock.now) {
			clock.tick(now - clock.now)
		} else if (now < clock.now) {
			throw new Error(`time goes back: ${now} ms after ${clock.now} ms`)
		}
		return (await decide(limiter, key)) ? 'A' : 'R'
	}
	return { answer, ready: 'ready' }
}

async function redisDriver() {
	const { createClient } = load('redis')
	const { RedisStore } = load('rate-limit-redis')
	const client = createClient({ url: `redis://${redisAddr}` })
	client.on('error', fail)
	await client.connect()
	let clock
	const store = new RedisStore({
		// As rate-limit-redis's readme writes it for node-redis, with the
		// clock the script read (see above). The three commands go out
		// together, in order, on one connection.
		sendCommand: async (...args) => {
			if (args[0] !== 'EVALSHA') return client.sendCommand(args)
			const [before, reply, expiry] = await Promise.all([
				client.sendCommand(['TIME']),
				client.sendCommand(args),
				client.sendCommand(['PEXPIRETIME', args[3]]),
			])
			if (Number(expiry) >= 0) clock = `${BigInt(expiry) - BigInt(reply[1])} =`
			else clock = `${BigInt(before[0]) * 1000n + BigInt(before[1]) / 1000n} ~`
			return reply
		},
	})
	const limiter = rateLimit(options(store))
	const sha = await store.incrementScriptSha // loaded by the store's init, which the limiter calls
	const answer = async (key) => {
		clock = undefined
		const admit = await decide(limiter, key)
		if (clock === undefined) throw new Error('the store ran no EVALSHA')
		return `${admit ? 'A' : 'R'} ${clock}`
	}
	return { answer, ready: `ready ${sha}` }
}

async function main() {
	if (!(windowMs > 0) || !(limit > 0)) throw new Error(`want WINDOW_MS and LIMIT, got ${windowMsArg} ${limitArg}`)
	let driver
	if (storeName === 'memory') driver = await memoryDriver()
	else if (storeName === 'redis') driver = await redisDriver()
	else throw new Error(`unknown store ${storeName}: want memory or redis`)
	const { answer, ready } = driver
	process.stdout.write(`${ready}\n`)
	const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity })
	for await (const line of lines) {
		const [key, t] = line.split(' ')
		process.stdout.write(`${await answer(key, t)}\n`)
	}
	process.exit(0)
}

main().catch(fail)
