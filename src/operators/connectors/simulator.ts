import { countries, operatorsByCountry } from '../../domain/operators';
import { HttpOperatorGateway, type HttpOperatorGatewayOptions } from '../http-gateway';
import type { Connector, VerifiedCallback } from './connector';

/**
 * The sandbox simulator (src/simulator) as a connector: test mode always uses it, and in development
 * live routes may name it too (`OPERATOR_ROUTES={"*":"simulator"}`; production refuses that). Its
 * callbacks arrive on /operator-callbacks/<CODE>, signed with OPERATOR_CALLBACK_SECRETS, not here.
 */
export class SimulatorConnector extends HttpOperatorGateway implements Connector {
  readonly name = 'simulator' as const;
  readonly serves = countries.flatMap((country) =>
    operatorsByCountry[country].map((operator) => ({ operator, country })),
  );

  constructor(opts: HttpOperatorGatewayOptions) {
    super(opts);
  }

  verifyCallback(): Promise<VerifiedCallback | null> {
    return Promise.resolve(null);
  }
}
