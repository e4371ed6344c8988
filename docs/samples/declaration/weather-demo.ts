// What a client gets from the WeatherServer declaration: the official SDK client, in memory.
import { connect } from '@pier/testing';
import { server } from './weather-server.js';

const { client, close } = await connect(server);

const { tools } = await client.listTools();
console.dir(
  tools.map(({ name, inputSchema }) => ({ name, inputSchema })),
  { depth: null },
);
console.log((await client.callTool({ name: 'forecast', arguments: { city: 'Lisbon' } })).content);
console.log((await client.callTool({ name: 'today', arguments: {} })).structuredContent);
console.log((await client.readResource({ uri: 'weather://Oslo/today' })).contents[0]);
const completion = await client.complete({
  ref: { type: 'ref/resource', uri: 'weather://{city}/today' },
  argument: { name: 'city', value: 'Os' },
});
console.log(completion.completion.values);
console.log((await client.callTool({ name: 'forecast', arguments: { city: 42 } })).content);
await close();
