/**
 * A web stream that reads its source only when its consumer asks (highWaterMark 0): what
 * `ReadableStream.from` does on Node, written out because the dashboard's DOM typings lack it.
 * Cancelling it returns the source's iterator, which closes what it was reading.
 */
export function pullStream(source: AsyncIterable<Uint8Array>): ReadableStream<Uint8Array> {
  const iterator = source[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const next = await iterator.next();
        if (next.done === true) controller.close();
        else controller.enqueue(next.value);
      },
      async cancel() {
        await iterator.return?.();
      },
    },
    { highWaterMark: 0 },
  );
}
