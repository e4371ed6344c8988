import { createServer, MCPServer, Prompt, Resource, type ResourceContext, Tool } from '@pier/core';
import { z } from 'zod';

interface Config {
  readonly units: 'metric' | 'imperial';
}

const CITIES = ['Lisbon', 'Lima', 'Oslo', 'Osaka'];

@MCPServer({ name: 'weather', version: '1.0.0', instructions: 'Forecasts for any city.' })
export class WeatherServer {
  constructor(private readonly config: Config) {}

  @Tool({ description: 'Forecast for a city', input: { city: z.string().describe('City name') } })
  async forecast({ city }: { city: string }) {
    return `Sunny in ${city}, 21°${this.config.units === 'metric' ? 'C' : 'F'}`;
  }

  @Tool({ description: 'Today in numbers', output: { high: z.number(), low: z.number() } })
  async today() {
    return { high: 21, low: 12 };
  }

  @Resource({
    uriTemplate: 'weather://{city}/today',
    description: "A city's weather today",
    complete: { city: (typed) => CITIES.filter((city) => city.startsWith(typed)) },
  })
  cityToday(_uri: URL, ctx: ResourceContext) {
    return { city: ctx.variables.city, high: 21, low: 12 };
  }

  @Prompt({ description: 'Plan a day around the weather', args: { city: z.string() } })
  plan({ city }: { city: string }) {
    return `Plan a day in ${city}; check its forecast first.`;
  }
}

export const server = createServer(WeatherServer, { units: 'metric' });
