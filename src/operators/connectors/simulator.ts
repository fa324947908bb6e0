import { countries, operatorsByCountry, type Country } from '../../domain/operators';
import { HttpOperatorGateway, type HttpOperatorGatewayOptions } from '../http-gateway';
import type { Connector, RecipientInfo, VerifiedCallback } from './connector';
import { sandboxRecipient } from './simulator-recipient';
import { simulatorControls, type SandboxControls } from './simulator-controls';

/**
 * The sandbox simulator (src/simulator) as a connector: test mode always uses it, and in development
 * live routes may name it too (`OPERATOR_ROUTES={"*":"simulator"}`; production refuses that). Its
 * callbacks arrive on /operator-callbacks/<CODE>, signed with OPERATOR_CALLBACK_SECRETS, not here.
 */
export class SimulatorConnector extends HttpOperatorGateway implements Connector {
  readonly serves = countries.flatMap((country) =>
    operatorsByCountry[country].map((operator) => ({ operator, country })),
  );

  /** The simulator's test controls, behind the API's test helpers (POST /v1/sandbox/...). */
  readonly controls: SandboxControls;

  /**
   * `simulator` is the sandbox's first route (the simulator's root); `simulator-2` its second, an
   * operator with books of its own (the simulator's /routes/2).
   */
  constructor(
    private readonly simulatorOpts: HttpOperatorGatewayOptions,
    readonly name: 'simulator' | 'simulator-2' = 'simulator',
  ) {
    super(simulatorOpts);
    this.controls = simulatorControls(simulatorOpts);
  }

  /** The sandbox's magic-number recipient check (test mode's GET /v1/providers/recipient). */
  recipient(msisdn: string, country: Country): Promise<RecipientInfo> {
    return sandboxRecipient(this.simulatorOpts, msisdn, country);
  }

  verifyCallback(): Promise<VerifiedCallback | null> {
    return Promise.resolve(null);
  }
}
